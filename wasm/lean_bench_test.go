package main

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// leanInputs: the inputs of one pod create as the impact replay's lean verdicts send them
// (src/request/cel-inputs.ts celInputs of an audit event).
func leanInputs(name, ns string) string {
	return fmt.Sprintf(`{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":%[1]q,"namespace":%[2]q,"labels":{"app":%[1]q}},"spec":{"containers":[{"name":"app","image":"registry.example.com/app:1.2.3","resources":{"limits":{"cpu":"500m","memory":"256Mi"}}}]}},"oldObject":null,"params":null,"namespaceObject":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%[2]q,"labels":{"kubernetes.io/metadata.name":%[2]q}}},"request":{"uid":"00000000-0000-0000-0000-000000000000","operation":"CREATE","resource":{"group":"","version":"v1","resource":"pods"},"kind":{"group":"","version":"v1","kind":"Pod"},"name":%[1]q,"namespace":%[2]q,"userInfo":{"username":"user-3","groups":["system:authenticated"]},"dryRun":false,"options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl"},"requestKind":{"group":"","version":"v1","kind":"Pod"},"requestResource":{"group":"","version":"v1","resource":"pods"}},"authorizer":{"rules":[]}}`, name, ns)
}

// leanItems: a lean batch of 30 items in one group (29 policies' validations and a webhook's
// matchCondition), as src/admission/lean.ts builds them.
func leanItems() []batchItem {
	opts := []byte(`{"hasParams":false,"variables":[],"kubernetesVersion":"1.37"}`)
	var items []batchItem
	for i := 0; i < 29; i++ {
		items = append(items, batchItem{Expression: fmt.Sprintf("!object.metadata.name.startsWith('deny-%d-')", i), Context: "vap-validation", Options: opts, Group: "lean"})
	}
	items = append(items, batchItem{Expression: "!request.userInfo.username.startsWith('system:')", Context: "webhook-matchCondition", Options: []byte(`{"kubernetesVersion":"1.37"}`), Group: "lean"})
	return items
}

// wireArgs encodes arguments as decodeArgs reads them.
func wireArgs(args ...string) []byte {
	var b []byte
	for _, a := range args {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(a)))
		b = append(b, a...)
	}
	return b
}

// packItems: a batch as src/cel/ops.ts packs it.
func packItems(items []batchItem) string {
	s := "\x00"
	for _, it := range items {
		s += it.Expression + "\x00" + it.Context + "\x00" + string(it.Options) + "\x00" + it.Group + "\x00"
	}
	return s
}

// One request of an impact replay through the operations table, as the lean path sends it:
// inputs stored, the batch, the inputs dropped.
func BenchmarkLeanBatch(b *testing.B) {
	packed := packItems(leanItems())
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = leanInputs(fmt.Sprintf("web-%d", i), fmt.Sprintf("team-%d", i%40))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := "inputs-" + fmt.Sprint(i)
		if a := callOp(3, wireArgs(id, texts[i%len(texts)])); a != "" {
			b.Fatal(a)
		}
		if a := callOp(2, wireArgs(id, packed)); len(a) < 2 || a[0] != 0 {
			b.Fatal(a)
		}
		callOp(4, wireArgs(id))
	}
}

// The same request as the lean path sends it now: one evaluateBatchOnce op, items by id (registered
// by the first call).
func BenchmarkLeanBatchOnce(b *testing.B) {
	items := leanItems()
	ids := make([]int, len(items))
	all := make([]bool, len(items))
	for i := range ids {
		ids[i] = i + 1
		all[i] = true
	}
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = leanInputs(fmt.Sprintf("web-%d", i), fmt.Sprintf("team-%d", i%40))
	}
	if a := callOp(10, wireArgs(texts[0], packIDs(true, items, ids, all))); len(a) < 2 || a[0] != 0 {
		b.Fatal(a)
	}
	byID := packIDs(false, items, ids, make([]bool, len(items)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if a := callOp(10, wireArgs(texts[i%len(texts)], byID)); len(a) < 2 || a[0] != 0 {
			b.Fatal(a)
		}
	}
}
