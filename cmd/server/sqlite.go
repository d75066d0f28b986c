package main

// SQLite is the reference server's embedded default (--database-url
// sqlite:…), so the server links the pure-Go driver; the library does not,
// and a host on Postgres compiles no SQLite.
import _ "modernc.org/sqlite"
