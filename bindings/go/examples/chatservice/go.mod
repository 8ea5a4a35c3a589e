module github.com/robota-ai/robota-native/bindings/go/examples/chatservice

go 1.19

require (
	github.com/lib/pq v1.10.7
	github.com/robota-ai/robota-native/bindings/go v1.2.0
)

// In this repository the example builds against the binding next to it.
replace github.com/robota-ai/robota-native/bindings/go => ../..
