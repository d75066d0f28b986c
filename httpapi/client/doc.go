// Package client is a typed Go client of tenantkit's HTTP API, generated
// from the API's OpenAPI document (httpapi/openapi.json) with oapi-codegen.
// It covers every operation a tenant's credential can call — collections,
// support, the tenant's subscription, notifications, events, webhook
// endpoints, the public catalog, health — and leaves out the operator API
// (/api/operator/…), which takes operator keys only and has its own
// client, httpapi/operatorapi/client.
//
// Make a client with the server's base URL and a request editor that sets
// the credential, then call an operation's …WithResponse method:
//
//	bearer := func(ctx context.Context, req *http.Request) error {
//		req.Header.Set("Authorization", "Bearer "+apiKey)
//		return nil
//	}
//	c, err := client.NewClientWithResponses("https://tenantkit.example.com", client.WithRequestEditorFn(bearer))
//	if err != nil {
//		return err
//	}
//	res, err := c.GetInvoiceWithResponse(ctx, "inv_01jd3k5q8r9s0t1v2w3x4y5z6a", nil)
//	switch {
//	case err != nil:
//		return err // the request was not answered, or the answer not understood
//	case res.Problem != nil:
//		return res.Problem // an error response; a Problem is an error
//	case res.JSON200 == nil:
//		return fmt.Errorf("get invoice: unexpected %s", res.Status())
//	}
//	fmt.Println(res.JSON200.ID, res.JSON200.Status, res.JSON200.AmountDue)
//
// A response has one field per success status of the operation (JSON200,
// JSON201, …), set when the server answered with it, and one Problem field
// for every error: all error responses are RFC 9457 problem documents of
// one type, Problem, whatever the status (the document's named error
// responses, BadRequest, NotFound and the others, are aliases of it).
// Branch on Problem.Status and Problem.Code (the ProblemCode constants);
// Problem.Errors names the offending fields of a 400 or 422 (FieldError);
// Problem.Detail is a sentence to show, not to parse, and what
// Problem.Error returns. The codes each error response can carry are
// listed in the document, in its description and x-problem-codes. Headers
// are read from HTTPResponse.Header (Location, ETag, Idempotent-Replayed,
// Retry-After), and the raw body is in Body.
//
// Operations with headers or query parameters take a …Params struct (nil
// for none): X-Tenant-ID picks the tenant to act on, Idempotency-Key makes
// a create safe to retry, Limit and Cursor page through lists (pass a page's
// NextCursor to get the next one).
//
// client.gen.go is generated: edit ../openapi.json, oapi-codegen.yaml or
// client-with-responses.tmpl and run go generate in this directory.
package client
