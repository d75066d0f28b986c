// Package client is a typed Go client of tenantkit's operator API
// (/api/operator/…), the platform staff's console across tenants: tenants
// and their plans, seats and limits, users and memberships, tenants' API
// keys, contract requests, the support desk's tickets, payment events that
// matched no invoice, and everyone's audit events. It is generated from the
// API's OpenAPI document (httpapi/openapi.json, the operations tagged
// Operator) with oapi-codegen, and takes an operator key (tko_…, made with
// `server operator-key create`) only: a tenant's API key or a session gets
// 403 insufficient_scope. The rest of the API, what a tenant's credential
// can call, is httpapi/client's.
//
// Make a client with the server's base URL and a request editor that sets
// the operator key, then call an operation's …WithResponse method:
//
//	bearer := func(ctx context.Context, req *http.Request) error {
//		req.Header.Set("Authorization", "Bearer "+operatorKey)
//		return nil
//	}
//	c, err := client.NewClientWithResponses("https://tenantkit.example.com", client.WithRequestEditorFn(bearer))
//	if err != nil {
//		return err
//	}
//	res, err := c.OperatorCreateTenantWithResponse(ctx, nil, client.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: "growth"})
//	switch {
//	case err != nil:
//		return err // the request was not answered, or the answer not understood
//	case res.Problem != nil:
//		return res.Problem // an error response; a Problem is an error
//	case res.JSON201 == nil:
//		return fmt.Errorf("create tenant: unexpected %s", res.Status())
//	}
//	fmt.Println(res.JSON201.ID, res.JSON201.PlanID, res.JSON201.Seats)
//
// The client is made as httpapi/client is, with the same configuration
// and template: a response has one field per success status of the
// operation (JSON200, JSON201, …), set when the server answered with it,
// and one Problem field for every error, the RFC 9457 problem document
// all error responses share. Branch on Problem.Status and Problem.Code
// (the ProblemCode constants); Problem.Errors names the offending fields
// of a 400 or 422 (FieldError); Problem.Detail is a sentence to show, not
// to parse, and what Problem.Error returns. Headers are read from
// HTTPResponse.Header (Location, Idempotent-Replayed, Retry-After), and the
// raw body is in Body.
//
// Every operation takes a …Params struct (nil for none): Limit and Cursor
// page through lists (pass a page's NextCursor to get the next one),
// TenantID and the other filters narrow the lists across tenants, and
// Idempotency-Key makes a create safe to retry.
//
// client.gen.go is generated: edit ../../openapi.json, oapi-codegen.yaml
// or httpapi/client's client-with-responses.tmpl (which both clients use)
// and run go generate in this directory.
package client
