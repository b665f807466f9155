package ops

// Default returns the registry of every operation Ripple offers. A new
// operation is one Add call in the file of its area.
func Default() *Registry {
	r := NewRegistry()
	addLineageOps(r)
	addDiffOps(r)
	addImpactOps(r)
	addModelOps(r)
	addCheckOps(r)
	addSummaryOps(r)
	addCLLOps(r)
	addSQLDiffOps(r)
	addStaticOps(r)
	addNodeOps(r)
	return r
}
