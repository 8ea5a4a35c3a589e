module github.com/robota-ai/robota-native/bindings/go/sqlstore/pgtest

go 1.19

require (
	github.com/lib/pq v1.10.7
	github.com/robota-ai/robota-native/bindings/go v0.0.0
)

// Offline: the binding of this checkout, and Debian's lib/pq source (golang-github-lib-pq-dev,
// installed by .ci/postgres.sh).
replace (
	github.com/lib/pq => /usr/share/gocode/src/github.com/lib/pq
	github.com/robota-ai/robota-native/bindings/go => ../..
)
