module example.com/robota-consumer

go 1.19

require github.com/robota-ai/robota-native/bindings/go v1.2.0
