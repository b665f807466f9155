// The drawable graph shared by the lineage and column-lineage screens, and
// the collapsing of long chains.

export interface Badge {
  text: string;
  /** a CSS class suffix: up, down, warn, info, ok */
  tone: string;
  title?: string;
}

export interface GNode {
  key: string;
  label: string;
  sublabel?: string;
  /** added, removed, modified, impacted, unchanged (colour and ARIA text) */
  status: string;
  badges?: Badge[];
  /** a collapsed chain: the keys it stands for */
  members?: string[];
}

export interface GraphData {
  nodes: GNode[];
  /** [parent index, child index] */
  edges: [number, number][];
}

/** Chains shorter than this stay expanded. */
export const MIN_CHAIN = 3;

/**
 * Replaces each run of at least MIN_CHAIN nodes that sit on a single path
 * (one parent, one child) and that keep(i) does not protect by one node
 * "N models" standing for them. expanded holds chain keys the user opened.
 */
export function collapseChains(g: GraphData, keep: (i: number) => boolean, expanded: Set<string>): GraphData {
  const n = g.nodes.length;
  const inDeg = new Int32Array(n);
  const outDeg = new Int32Array(n);
  const parentOf = new Int32Array(n).fill(-1);
  const childOf = new Int32Array(n).fill(-1);
  for (const [a, b] of g.edges) {
    outDeg[a]++;
    inDeg[b]++;
    parentOf[b] = a;
    childOf[a] = b;
  }
  const inner = (i: number) => inDeg[i] === 1 && outDeg[i] === 1 && !keep(i);
  const chainOf = new Int32Array(n).fill(-1);
  const chains: number[][] = [];
  for (let i = 0; i < n; i++) {
    if (!inner(i) || chainOf[i] >= 0 || inner(parentOf[i])) continue;
    // i starts a chain: follow single children while they are inner.
    const members: number[] = [];
    for (let v = i; v >= 0 && inner(v) && chainOf[v] < 0; v = childOf[v]) {
      members.push(v);
      chainOf[v] = -2;
    }
    if (members.length >= MIN_CHAIN && !expanded.has(chainKey(g, members))) {
      for (const m of members) chainOf[m] = chains.length;
      chains.push(members);
    } else {
      for (const m of members) chainOf[m] = -1;
    }
  }
  if (chains.length === 0) return g;
  const nodes: GNode[] = [];
  const map = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (chainOf[i] >= 0) continue;
    map[i] = nodes.length;
    nodes.push(g.nodes[i]);
  }
  for (const members of chains) {
    const idx = nodes.length;
    for (const m of members) map[m] = idx;
    const statuses = members.map((m) => g.nodes[m].status);
    nodes.push({
      key: chainKey(g, members),
      label: `${members.length} models`,
      sublabel: `${g.nodes[members[0]].label} … ${g.nodes[members[members.length - 1]].label}`,
      status: statuses.includes('impacted') ? 'impacted' : 'unchanged',
      members: members.map((m) => g.nodes[m].key),
    });
  }
  const edges: [number, number][] = [];
  const seen = new Set<number>();
  for (const [a, b] of g.edges) {
    const ma = map[a];
    const mb = map[b];
    if (ma === mb) continue;
    const k = ma * (nodes.length + 1) + mb;
    if (seen.has(k)) continue;
    seen.add(k);
    edges.push([ma, mb]);
  }
  return { nodes, edges };
}

function chainKey(g: GraphData, members: number[]): string {
  return `chain:${g.nodes[members[0]].key}`;
}
