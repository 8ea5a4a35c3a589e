// Package pgtest tests package sqlstore against a real PostgreSQL server: the server of
// ROBOTA_PG_DSN (.ci/postgres.sh starts a throwaway one: `bash .ci/postgres.sh go test ./...`
// from this directory, or source it). Without ROBOTA_PG_DSN the tests skip, and fail under CI.
// A module of its own, so the binding's module needs no PostgreSQL driver.
package pgtest
