package client

// client.gen.go is generated from ../../openapi.json by oapi-codegen, as
// oapi-codegen.yaml configures it; TestGeneratedClientsAreCurrent (in
// httpapi/client) fails when it is stale.
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../../openapi.json
