// Layered (left-to-right) layout of a DAG.
//
// Small graphs — what a pull request usually touches — are laid out by
// dagre, the layout library most DAG UIs use. dagre's crossing minimisation
// grows much faster than linearly: on a 1,046-node slice of a 2,000-model
// project it took 7 to 47 seconds (depending on its ranker), so larger graphs
// get a linear-time Sugiyama-style layout here: longest-path layers,
// barycentre ordering sweeps, and a barycentre vertical placement. Both give
// node centres; the caller draws edges as curves between them.
import dagre from '@dagrejs/dagre';

export interface LayoutOptions {
  nodeWidth: number;
  nodeHeight: number;
  rankGap: number;
  nodeGap: number;
}

export interface Layout {
  x: Float64Array;
  y: Float64Array;
  width: number;
  height: number;
  engine: 'dagre' | 'layered';
}

/** Graphs up to this many nodes go to dagre (well under 100 ms there). */
export const DAGRE_MAX_NODES = 150;

export function layout(n: number, edges: [number, number][], o: LayoutOptions): Layout {
  if (n === 0) return { x: new Float64Array(0), y: new Float64Array(0), width: 0, height: 0, engine: 'layered' };
  return n <= DAGRE_MAX_NODES ? dagreLayout(n, edges, o) : layeredLayout(n, edges, o);
}

function dagreLayout(n: number, edges: [number, number][], o: LayoutOptions): Layout {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: o.nodeGap, ranksep: o.rankGap, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (let i = 0; i < n; i++) g.setNode(String(i), { width: o.nodeWidth, height: o.nodeHeight });
  for (const [a, b] of edges) if (a !== b) g.setEdge(String(a), String(b));
  dagre.layout(g);
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = g.node(String(i));
    x[i] = p.x;
    y[i] = p.y;
  }
  const gl = g.graph();
  return { x, y, width: gl.width ?? 0, height: gl.height ?? 0, engine: 'dagre' };
}

/** Linear-time layered layout (see the file comment). */
function layeredLayout(n: number, edges: [number, number][], o: LayoutOptions): Layout {
  const parents: number[][] = Array.from({ length: n }, () => []);
  const children: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of edges) {
    if (a === b) continue;
    parents[b].push(a);
    children[a].push(b);
  }
  // Longest-path layers in topological (Kahn) order; nodes on a cycle,
  // which dbt forbids, keep layer 0.
  const rank = new Int32Array(n);
  const indeg = new Int32Array(n);
  for (let i = 0; i < n; i++) indeg[i] = parents[i].length;
  const topo: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) topo.push(i);
  for (let h = 0; h < topo.length; h++) {
    const v = topo[h];
    for (const c of children[v]) {
      if (rank[v] + 1 > rank[c]) rank[c] = rank[v] + 1;
      if (--indeg[c] === 0) topo.push(c);
    }
  }
  // Roots sit just left of their first child instead of all in layer 0.
  for (let h = topo.length - 1; h >= 0; h--) {
    const v = topo[h];
    if (parents[v].length === 0 && children[v].length > 0) {
      let m = Infinity;
      for (const c of children[v]) m = Math.min(m, rank[c]);
      rank[v] = Math.max(rank[v], m - 1);
    }
  }
  let maxRank = 0;
  for (let i = 0; i < n; i++) maxRank = Math.max(maxRank, rank[i]);
  const layers: number[][] = Array.from({ length: maxRank + 1 }, () => []);
  const seen = new Uint8Array(n);
  for (const v of topo) {
    layers[rank[v]].push(v);
    seen[v] = 1;
  }
  for (let i = 0; i < n; i++) if (!seen[i]) layers[rank[i]].push(i);

  // Barycentre ordering: sweep down using parents, up using children.
  const pos = new Float64Array(n);
  const index = () => layers.forEach((l) => l.forEach((v, i) => (pos[v] = i)));
  index();
  const bary = new Float64Array(n);
  for (let sweep = 0; sweep < 6; sweep++) {
    const down = sweep % 2 === 0;
    for (let k = 0; k < layers.length; k++) {
      const layer = layers[down ? k : layers.length - 1 - k];
      for (const v of layer) {
        const nb = down ? parents[v] : children[v];
        if (nb.length === 0) {
          bary[v] = pos[v];
          continue;
        }
        let s = 0;
        for (const u of nb) s += pos[u];
        bary[v] = s / nb.length;
      }
      layer.sort((a, b) => bary[a] - bary[b] || pos[a] - pos[b]);
      layer.forEach((v, i) => (pos[v] = i));
    }
  }

  // Vertical placement: each node wants the mean height of its neighbours,
  // kept in layer order at least one slot apart.
  const slot = o.nodeHeight + o.nodeGap;
  const y = new Float64Array(n);
  for (const l of layers) l.forEach((v, i) => (y[v] = i * slot));
  const want = new Float64Array(n);
  for (let sweep = 0; sweep < 4; sweep++) {
    const down = sweep % 2 === 0;
    for (let k = 0; k < layers.length; k++) {
      const layer = layers[down ? k : layers.length - 1 - k];
      for (const v of layer) {
        const nb = down ? parents[v] : children[v];
        if (nb.length === 0) {
          want[v] = y[v];
          continue;
        }
        let s = 0;
        for (const u of nb) s += y[u];
        want[v] = s / nb.length;
      }
      place(layer, want, y, slot);
    }
  }
  let minY = Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minY = Math.min(minY, y[i]);
    maxY = Math.max(maxY, y[i]);
  }
  const x = new Float64Array(n);
  const margin = 20;
  for (let i = 0; i < n; i++) {
    x[i] = margin + o.nodeWidth / 2 + rank[i] * (o.nodeWidth + o.rankGap);
    y[i] = y[i] - minY + margin + o.nodeHeight / 2;
  }
  return {
    x,
    y,
    width: 2 * margin + (maxRank + 1) * o.nodeWidth + maxRank * o.rankGap,
    height: 2 * margin + (maxY - minY) + o.nodeHeight,
    engine: 'layered',
  };
}

/** Places one layer as near its wanted heights as the order and spacing allow. */
function place(layer: number[], want: Float64Array, y: Float64Array, slot: number) {
  // Forward pass pushes down, backward pass pulls up; their mean keeps the
  // layer centred on what it wants.
  const m = layer.length;
  const fwd = new Float64Array(m);
  const bwd = new Float64Array(m);
  for (let i = 0; i < m; i++) fwd[i] = i === 0 ? want[layer[0]] : Math.max(want[layer[i]], fwd[i - 1] + slot);
  for (let i = m - 1; i >= 0; i--) bwd[i] = i === m - 1 ? want[layer[m - 1]] : Math.min(want[layer[i]], bwd[i + 1] - slot);
  for (let i = 0; i < m; i++) y[layer[i]] = (fwd[i] + bwd[i]) / 2;
  // The mean of two spaced sequences is spaced too; a last pass guards rounding.
  for (let i = 1; i < m; i++) if (y[layer[i]] < y[layer[i - 1]] + slot) y[layer[i]] = y[layer[i - 1]] + slot;
}
