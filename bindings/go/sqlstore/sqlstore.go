// Package sqlstore is a robota.Store over database/sql for PostgreSQL: several processes
// sharing one database save, load, list and delete the same sessions, and the optimistic
// version check makes two nodes advancing one session at once end with one success and one
// conflict, never a lost turn. It imports no driver: open db with the PostgreSQL driver of your
// choice (e.g. github.com/lib/pq or github.com/jackc/pgx/v5/stdlib).
//
//	db, _ := sql.Open("postgres", dsn)
//	store := sqlstore.New(db)
//	if err := store.CreateSchema(ctx); err != nil { … }
//	err := rt.SetStore(store)
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	robota "github.com/robota-ai/robota-native/bindings/go"
)

// Store keeps sessions in the table robota_sessions (one row per session, its version, summary
// columns and snapshot) and transcripts in robota_transcripts (appended chunks in order).
type Store struct {
	db *sql.DB
}

var _ robota.Store = (*Store)(nil)

// New returns a Store over db (a PostgreSQL database).
func New(db *sql.DB) *Store { return &Store{db: db} }

// schemaLock is the advisory lock key that serializes CreateSchema across processes
// (PostgreSQL's CREATE … IF NOT EXISTS is not safe against a concurrent CREATE).
const schemaLock = 0x526f626f7461 // "Robota"

var schema = []string{
	`CREATE TABLE IF NOT EXISTS robota_sessions (
		id text PRIMARY KEY,
		version bigint NOT NULL,
		name text,
		cwd text NOT NULL,
		created_at text NOT NULL,
		updated_at text NOT NULL,
		message_count bigint NOT NULL,
		snapshot text NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS robota_sessions_cwd_updated ON robota_sessions (cwd, updated_at DESC)`,
	`CREATE TABLE IF NOT EXISTS robota_transcripts (
		session_id text NOT NULL,
		seq bigserial PRIMARY KEY,
		lines text NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS robota_transcripts_session ON robota_transcripts (session_id, seq)`,
}

// CreateSchema creates the tables and indexes when they do not exist (idempotent, safe to call
// from several processes at once).
func (s *Store) CreateSchema(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: create schema: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
		return fmt.Errorf("sqlstore: create schema: %w", err)
	}
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("sqlstore: create schema: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: create schema: %w", err)
	}
	return nil
}

// Load implements robota.Store.
func (s *Store) Load(ctx context.Context, sessionID string) (robota.StoredSession, error) {
	var out robota.StoredSession
	var snapshot string
	err := s.db.QueryRowContext(ctx, `SELECT version, snapshot FROM robota_sessions WHERE id = $1`, sessionID).
		Scan(&out.Version, &snapshot)
	if errors.Is(err, sql.ErrNoRows) {
		return out, robota.ErrStoreNotFound
	}
	if err != nil {
		return out, fmt.Errorf("sqlstore: load %q: %w", sessionID, err)
	}
	out.Snapshot = []byte(snapshot)
	return out, nil
}

// Save implements robota.Store: an INSERT for a new session (ExpectedVersion 0), else an UPDATE
// of the row still at ExpectedVersion; no row written is a conflict.
func (s *Store) Save(ctx context.Context, in robota.StoreSave) (uint64, error) {
	sum := in.Summary
	var res sql.Result
	var err error
	if in.ExpectedVersion == 0 {
		res, err = s.db.ExecContext(ctx, `INSERT INTO robota_sessions
			(id, version, name, cwd, created_at, updated_at, message_count, snapshot)
			VALUES ($1, 1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
			in.SessionID, sum.Name, sum.Cwd, sum.CreatedAt, sum.UpdatedAt, int64(sum.MessageCount), string(in.Snapshot))
	} else {
		res, err = s.db.ExecContext(ctx, `UPDATE robota_sessions SET version = version + 1,
			name = $3, cwd = $4, created_at = $5, updated_at = $6, message_count = $7, snapshot = $8
			WHERE id = $1 AND version = $2`,
			in.SessionID, int64(in.ExpectedVersion), sum.Name, sum.Cwd, sum.CreatedAt, sum.UpdatedAt, int64(sum.MessageCount), string(in.Snapshot))
	}
	if err != nil {
		return 0, fmt.Errorf("sqlstore: save %q: %w", in.SessionID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlstore: save %q: %w", in.SessionID, err)
	}
	if n == 1 {
		return in.ExpectedVersion + 1, nil
	}
	var stored uint64
	err = s.db.QueryRowContext(ctx, `SELECT version FROM robota_sessions WHERE id = $1`, in.SessionID).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("sqlstore: save %q: reading the stored version: %w", in.SessionID, err)
	}
	return 0, &robota.StoreConflictError{StoredVersion: stored}
}

// Delete implements robota.Store (the session's transcript stays).
func (s *Store) Delete(ctx context.Context, sessionID string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM robota_sessions WHERE id = $1`, sessionID)
	if err != nil {
		return fmt.Errorf("sqlstore: delete %q: %w", sessionID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlstore: delete %q: %w", sessionID, err)
	}
	if n == 0 {
		return robota.ErrStoreNotFound
	}
	return nil
}

// List implements robota.Store: newest updated_at first (then by id).
func (s *Store) List(ctx context.Context, q robota.StoreQuery) ([]robota.StoredSummary, error) {
	var query strings.Builder
	var args []any
	query.WriteString(`SELECT id, name, cwd, created_at, updated_at, message_count FROM robota_sessions`)
	if q.Cwd != nil {
		args = append(args, *q.Cwd)
		fmt.Fprintf(&query, ` WHERE cwd = $%d`, len(args))
	}
	query.WriteString(` ORDER BY updated_at DESC, id`)
	if q.Limit != nil {
		if *q.Limit < 0 {
			return nil, fmt.Errorf("sqlstore: list: limit %d is negative", *q.Limit)
		}
		args = append(args, *q.Limit)
		fmt.Fprintf(&query, ` LIMIT $%d`, len(args))
	}
	rows, err := s.db.QueryContext(ctx, query.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list: %w", err)
	}
	defer rows.Close()
	out := []robota.StoredSummary{}
	for rows.Next() {
		var sum robota.StoredSummary
		var name sql.NullString
		if err := rows.Scan(&sum.ID, &name, &sum.Cwd, &sum.CreatedAt, &sum.UpdatedAt, &sum.MessageCount); err != nil {
			return nil, fmt.Errorf("sqlstore: list: %w", err)
		}
		if name.Valid {
			sum.Name = &name.String
		}
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: list: %w", err)
	}
	return out, nil
}

// Append implements robota.Store.
func (s *Store) Append(ctx context.Context, sessionID string, lines []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO robota_transcripts (session_id, lines) VALUES ($1, $2)`, sessionID, string(lines))
	if err != nil {
		return fmt.Errorf("sqlstore: append to %q: %w", sessionID, err)
	}
	return nil
}

// Transcript returns the session's transcript: its appended lines in order ("" when there are
// none).
func (s *Store) Transcript(ctx context.Context, sessionID string) (string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT lines FROM robota_transcripts WHERE session_id = $1 ORDER BY seq`, sessionID)
	if err != nil {
		return "", fmt.Errorf("sqlstore: transcript of %q: %w", sessionID, err)
	}
	defer rows.Close()
	var out strings.Builder
	for rows.Next() {
		var chunk string
		if err := rows.Scan(&chunk); err != nil {
			return "", fmt.Errorf("sqlstore: transcript of %q: %w", sessionID, err)
		}
		out.WriteString(chunk)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("sqlstore: transcript of %q: %w", sessionID, err)
	}
	return out.String(), nil
}
