module github.com/robota-ai/robota-native/bindings/go

go 1.19
