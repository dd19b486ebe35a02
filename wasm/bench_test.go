package main

import "testing"

var benchExprs = []string{
	"request.operation == 'CREATE' && object.metadata.namespace != 'kube-system'",
	"object.spec.containers.all(c, c.image.startsWith('registry.internal/'))",
	"has(object.metadata.labels) && 'team' in object.metadata.labels",
	"object.spec.replicas <= params.maxReplicas",
	"!(request.userInfo.username in ['system:admin']) && object.metadata.name.matches('^[a-z]+$')",
}

const benchInputs = `{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"team":"a","app":"web"}},"spec":{"replicas":3,"containers":[{"name":"a","image":"registry.internal/a:1"},{"name":"b","image":"registry.internal/b:1"},{"name":"c","image":"registry.internal/c:1"}]}},"params":{"maxReplicas":5},"request":{"operation":"CREATE","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"name":"web","namespace":"default","userInfo":{"username":"alice","groups":["dev"]}}}`

func BenchmarkEvaluateMix(b *testing.B) {
	if m := SetInputs("b", benchInputs); m != "" {
		b.Fatal(m)
	}
	for i := 0; i < b.N; i++ {
		r := Evaluate(benchExprs[i%5], "vap-validation", `{"hasParams":true}`, "b")
		if !r.OK {
			b.Fatal(r.Message)
		}
	}
}

func BenchmarkEvaluateBatch(b *testing.B) {
	if m := SetInputs("b", benchInputs); m != "" {
		b.Fatal(m)
	}
	var items []batchItem
	for i := 0; i < 100; i++ {
		items = append(items, batchItem{Expression: benchExprs[i%5], Context: "vap-validation",
			Options: []byte(`{"hasParams":true}`), Group: "p" + string(rune('0'+i/5%10))})
	}
	for i := 0; i < b.N; i++ {
		for _, r := range evaluateItems(inputCache["b"], "b", entriesOf(items)) {
			if !r.OK {
				b.Fatal(r.Message)
			}
		}
	}
}
