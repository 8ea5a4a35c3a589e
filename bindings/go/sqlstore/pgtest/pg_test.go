package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

// testTimeout bounds every test's database work and turn (a hang fails instead of blocking CI).
const testTimeout = 60 * time.Second

// pgDSN is ROBOTA_PG_DSN; without it the test skips, or fails under CI.
func pgDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("ROBOTA_PG_DSN")
	if dsn != "" {
		return dsn
	}
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatal("ROBOTA_PG_DSN is not set: under CI the PostgreSQL tests need a server (. .ci/postgres.sh)")
	}
	t.Skip("ROBOTA_PG_DSN is not set (run: bash .ci/postgres.sh go test ./...)")
	return ""
}

var schemas atomic.Int64

// freshSchema creates an empty PostgreSQL schema for the test (dropped after it) and returns
// the DSN whose connections use it (search_path).
func freshSchema(t testing.TB) string {
	t.Helper()
	dsn := pgDSN(t)
	admin, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("robota_test_%d_%d", os.Getpid(), schemas.Add(1))
	if _, err := admin.ExecContext(testCtx(t), "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("create schema %s: %v", name, err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec("DROP SCHEMA " + name + " CASCADE")
		_ = admin.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("ROBOTA_PG_DSN is not a URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// openDB opens a database handle on dsn, closed after the test.
func openDB(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}
