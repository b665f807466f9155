// The project shape and the scheduler: relation index, dependency waves and
// the ready-queue schedule that AnalyzeProject runs models in.

package cll

import (
	"slices"
	"sort"

	"github.com/ripple-data/ripple/internal/dbt"
)

// projectShape is everything about a project except its SQL: relation
// index, catalog columns, dependency waves. It is rebuilt only when a
// relation, dependency or catalog entry changes.
type projectShape struct {
	ri       *relIndex
	waves    [][]string
	children map[string][]string
	sched    *schedule
}

// schedule is the dependency graph of the models, numbered in wave order,
// that AnalyzeProject runs: a model is ready once its parents in earlier
// waves are analysed, so no core waits for a whole wave to finish.
type schedule struct {
	order []string
	// wave numbers each model's wave.
	wave []int32
	pos  map[string]int32
	// kids[kidsOff[i]:kidsOff[i+1]] are the models waiting for model i;
	// indeg counts, per model, the parents it waits for.
	kidsOff, kids []int32
	indeg         []int32
}

func newSchedule(wv [][]string, pos map[string]int32, g depGraph) *schedule {
	s := &schedule{pos: make(map[string]int32, len(pos))}
	for w, wave := range wv {
		for _, id := range wave {
			s.pos[id] = int32(len(s.order))
			s.order = append(s.order, id)
			s.wave = append(s.wave, int32(w))
		}
	}
	// at maps a model's sorted number to its place in the schedule.
	at := make([]int32, len(pos))
	for id, i := range pos {
		at[i] = s.pos[id]
	}
	s.indeg = make([]int32, len(s.order))
	var from, to []int32
	for k, f := range g.from {
		// Exactly the parents a wave-by-wave run would have finished
		// (a cycle's models, in one last wave, do not see each other).
		t := g.to[k]
		if g.wave[f] >= g.wave[t] {
			continue
		}
		s.indeg[at[t]]++
		from = append(from, at[f])
		to = append(to, at[t])
	}
	s.kidsOff, s.kids = csr(len(s.order), from, to)
	return s
}

func buildShape(env *dbt.Env) *projectShape {
	m := env.Manifest
	// The relation index and the dependency order are independent: build
	// them on two cores (this part of a cold analysis is serial).
	type riResult struct {
		ri    *relIndex
		panic any
	}
	riDone := make(chan riResult, 1)
	go func() {
		// A panic is handed to the caller's goroutine, where it was
		// raised before this ran concurrently.
		defer func() {
			if r := recover(); r != nil {
				riDone <- riResult{panic: r}
			}
		}()
		ri := newRelIndex(m)
		for id := range ri.keys {
			if cc := catalogColumns(env, id); cc != nil {
				ri.catalog[id] = catalogCols{cols: cc, hash: namesHash(cc)}
			}
		}
		riDone <- riResult{ri: ri}
	}()
	var models []string
	for id, n := range m.Nodes {
		if n.ResourceType == dbt.Model && n.Enabled() {
			models = append(models, id)
		}
	}
	sort.Strings(models)
	pos := make(map[string]int32, len(models))
	for i, id := range models {
		pos[id] = int32(i)
	}
	children := make(map[string][]string, len(models))
	for _, id := range models {
		for _, p := range m.Nodes[id].DependsOn.Nodes {
			children[p] = append(children[p], id)
		}
	}
	wv, deps := waves(m, models, pos)
	r := <-riDone
	if r.panic != nil {
		panic(r.panic)
	}
	return &projectShape{ri: r.ri, waves: wv, children: children, sched: newSchedule(wv, pos, deps)}
}

// depGraph is the models' dependency graph numbered by sorted model
// order: edge k runs from model from[k] to model to[k] (deduplicated, no
// self-edges), and wave numbers each model's wave.
type depGraph struct {
	from, to, wave []int32
}

// waves orders models so every model comes after the models it reads.
// models are sorted and pos numbers them; the waves are computed over those
// numbers, so each wave comes out sorted.
func waves(m *dbt.Manifest, models []string, pos map[string]int32) ([][]string, depGraph) {
	n := len(models)
	indeg := make([]int32, n)
	var from, to []int32
	for i, id := range models {
		deps := m.Nodes[id].DependsOn.Nodes
		for j, p := range deps {
			pi, ok := pos[p]
			if !ok || p == id || slices.Contains(deps[:j], p) {
				continue
			}
			indeg[i]++
			from = append(from, pi)
			to = append(to, int32(i))
		}
	}
	off, kids := csr(n, from, to)
	waveOf := make([]int32, n)
	var cur []int32
	for i := range models {
		if indeg[i] == 0 {
			cur = append(cur, int32(i))
		}
	}
	var out [][]string
	placed := 0
	for len(cur) > 0 {
		slices.Sort(cur)
		wave := make([]string, len(cur))
		for k, i := range cur {
			wave[k] = models[i]
			waveOf[i] = int32(len(out))
		}
		out = append(out, wave)
		placed += len(cur)
		var nxt []int32
		for _, i := range cur {
			for _, k := range kids[off[i]:off[i+1]] {
				indeg[k]--
				if indeg[k] == 0 {
					nxt = append(nxt, k)
				}
			}
		}
		cur = nxt
	}
	if placed < n {
		// A cycle: analyse the rest last rather than dropping it.
		var rest []string
		for i, id := range models {
			if indeg[i] > 0 {
				rest = append(rest, id)
				waveOf[i] = int32(len(out))
			}
		}
		out = append(out, rest)
	}
	return out, depGraph{from: from, to: to, wave: waveOf}
}
