// Package tenantkit composes tenantkit: it builds every domain service on
// its Bun store over one database (New), migrates that database (Migrate,
// Schema), and hands the services to the HTTP edge (App.HTTPConfig). It is
// the one place where the pieces meet; cmd/server and host apps both start
// here:
//
//	db := bun.NewDB(sqldb, pgdialect.New())          // Postgres or SQLite
//	if _, err := tenantkit.Migrate(ctx, db); err != nil { … }
//	app, err := tenantkit.New(db, catalog.Default())
//	cfg := app.HTTPConfig()                          // add JWT, a webhook verifier, …
//	api, err := httpapi.New(ctx, cfg)
//	http.ListenAndServe(":8080", api.Handler())
//
// The domains know nothing of one another's storage, nor of HTTP:
//
//	catalog  plans and modules (plain data)
//	tenancy  tenants, users, keys, entitlements, notifications
//	billing  invoices, payments, contract requests    billing/bunstore
//	support  tickets                                  support/bunstore
//	webhook  the payment provider's inbox             webhook/bunstore
//	httpapi  the HTTP edge, on interfaces it declares
//
// Each domain declares the Store it consumes and a Transactor, and each
// bunstore package implements that Store on Bun. A service runs its
// multi-step operations through the Transactor, and the stores run every
// query on the transaction the context carries (Conn): NewTransactor and
// Conn are that mechanism, open to stores written outside tenantkit.
package tenantkit
