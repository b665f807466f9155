// The typed client of Ripple's JSON API. Every read of an operation's input
// or result field happens in this file: screens only see the types below, so
// a change of result shape on the Go side is an edit here and nowhere else.
//
// POST /api/ops/<name> takes the operation's arguments and returns exactly
// what `ripple <op> --json` prints.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly kind: string,
    readonly warehouseClass?: string,
  ) {
    super(message);
  }
}

// Raw JSON from the server; narrowed into the types below right here.
type Json = any;

async function post(path: string, args: object): Promise<Json> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(args),
    credentials: 'same-origin',
  });
  return decode(res);
}

// The decimal places each number of a row was sent with: JSON.parse turns
// 63.40 into 63.4, and a DECIMAL(18,2) amount must keep its scale on screen.
const rowDecimals = new WeakMap<object, number[]>();

/** The decimal places the server wrote for row[i] (0 when unknown). */
export function sentDecimals(row: unknown[], i: number): number {
  return rowDecimals.get(row)?.[i] ?? 0;
}

// A reviver that records, for numbers inside arrays, the decimals of their
// source text (JSON.parse source text access; browsers without it keep 0).
function keepScale(this: unknown, key: string, value: unknown, ctx?: { source?: string }): unknown {
  if (typeof value === 'number' && Array.isArray(this) && ctx?.source) {
    const dot = ctx.source.indexOf('.');
    if (dot >= 0 && !/[eE]/.test(ctx.source)) {
      let d = rowDecimals.get(this);
      if (!d) rowDecimals.set(this, (d = []));
      d[Number(key)] = ctx.source.length - dot - 1;
    }
  }
  return value;
}

async function decode(res: Response): Promise<Json> {
  let body: Json = null;
  try {
    body = JSON.parse(await res.text(), keepScale as (this: unknown, key: string, value: unknown) => unknown);
  } catch {
    throw new ApiError(`${res.status} ${res.statusText}: the server did not answer JSON`, res.status, 'internal');
  }
  if (!res.ok) {
    const e = body?.error ?? {};
    throw new ApiError(e.message ?? `${res.status} ${res.statusText}`, res.status, e.kind ?? 'internal', e.warehouse_class);
  }
  return body;
}

/** Calls one registry operation. */
export function callOp(op: string, args: object = {}): Promise<Json> {
  return post(`/api/ops/${encodeURIComponent(op)}`, args);
}

// ---------------------------------------------------------------- frames

export interface FrameColumn {
  key: string;
  name: string;
  type: string;
}

/** A DataFrame: ordered columns and rows of values. */
export interface Frame {
  columns: FrameColumn[];
  rows: unknown[][];
  limit?: number;
  more?: boolean;
  totalRows?: number;
}

function frame(f: Json): Frame | null {
  if (!f || !Array.isArray(f.columns)) return null;
  return { columns: f.columns, rows: f.data ?? [], limit: f.limit, more: f.more, totalRows: f.total_row_count };
}

/** Rows of a frame as objects keyed by column key. */
export function records(f: Frame | null): Record<string, unknown>[] {
  if (!f) return [];
  return f.rows.map((r) => Object.fromEntries(f.columns.map((c, i) => [c.key, r[i]])));
}

// ---------------------------------------------------------------- server info

export interface Info {
  version: string;
  projectName: string;
  adapterType: string;
  projectDir: string;
  current: { dir: string; generatedAt?: string; modifiedAt: string };
  base: { dir: string; generatedAt?: string; modifiedAt: string };
  singleEnv: boolean;
  singleEnvWarning?: string;
  baseStatus?: { status: string; reason: string };
  artifactsVersion: number;
  loadError?: string;
  readOnly: boolean;
  warehouse: boolean;
  stateFile: string;
  operations: Set<string>;
}

export async function info(): Promise<Info> {
  const res = await fetch('/api/info', { credentials: 'same-origin' });
  const j = await decode(res);
  const side = (s: Json) => ({ dir: s.dir, generatedAt: s.generated_at, modifiedAt: s.modified_at });
  return {
    version: j.version,
    projectName: j.project_name,
    adapterType: j.adapter_type,
    projectDir: j.project_dir,
    current: side(j.current),
    base: side(j.base),
    singleEnv: j.single_env,
    singleEnvWarning: j.single_env_warning,
    baseStatus: j.base_status,
    artifactsVersion: j.artifacts_version,
    loadError: j.load_error,
    readOnly: j.read_only,
    warehouse: j.warehouse,
    stateFile: j.state_file,
    operations: new Set((j.operations ?? []).map((o: Json) => o.name)),
  };
}

// ---------------------------------------------------------------- lineage

export type ChangeStatus = 'added' | 'removed' | 'modified';
/** The colour a node gets: its change, else its verdict (impacted, ruled out by column lineage) or unchanged. */
export type NodeStatus = ChangeStatus | 'impacted' | 'ruled_out' | 'unchanged';

export interface LineageNode {
  idx: number;
  id: string;
  name: string;
  resourceType: string;
  packageName: string;
  materialized: string | null;
  changeStatus: ChangeStatus | null;
  modifications: string[];
  impacted: boolean;
  /** the impact model's verdict (impact_analysis's): impacted, ruled_out or not_impacted */
  verdict: string;
  status: NodeStatus;
}

export interface LineageGraph {
  nodes: LineageNode[];
  /** [parent idx, child idx] */
  edges: [number, number][];
  changedCount: number;
  impactedCount: number;
  totalNodes: number;
  singleEnv: boolean;
  warning?: string;
}

export interface LineageFilter {
  select?: string;
  exclude?: string;
  packages?: string[];
  viewMode: 'changed_models' | 'all';
}

let prefetched: Promise<LineageGraph> | null = null;

/** Starts the home screen's request while the app is still starting up. */
export function prefetchLineage() {
  prefetched = fetchLineage({ viewMode: 'changed_models' });
  prefetched.catch(() => {}); // the screen's own call reports errors
}

/** lineage_diff, uncapped (the UI culls what it draws). */
export function lineageDiff(f: LineageFilter): Promise<LineageGraph> {
  const p = prefetched;
  prefetched = null;
  if (p && f.viewMode === 'changed_models' && !f.select && !f.exclude && !f.packages?.length) return p;
  return fetchLineage(f);
}

async function fetchLineage(f: LineageFilter): Promise<LineageGraph> {
  const args: Json = { view_mode: f.viewMode };
  if (f.select) args.select = f.select;
  if (f.exclude) args.exclude = f.exclude;
  if (f.packages?.length) args.packages = f.packages;
  return parseLineage(await post('/api/ui/lineage', args));
}

/** Parses a lineage_diff result (also handed to the MCP App by its host). */
export function parseLineage(j: Json): LineageGraph {
  const nodes = records(frame(j.nodes)).map((r): LineageNode => {
    const changeStatus = (r.change_status as ChangeStatus | null) ?? null;
    const dagImpacted = r.impacted as boolean;
    // verdict is the one answer every surface gives; impacted is the DAG's.
    const verdict = (r.verdict as string | null) ?? (dagImpacted ? 'impacted' : 'not_impacted');
    const impacted = verdict === 'impacted';
    return {
      idx: r.idx as number,
      id: r.id as string,
      name: r.name as string,
      resourceType: r.resource_type as string,
      packageName: r.package_name as string,
      materialized: (r.materialized as string | null) ?? null,
      changeStatus,
      modifications: (r.modifications as string[]) ?? [],
      impacted,
      verdict,
      status: changeStatus ?? (impacted ? 'impacted' : verdict === 'ruled_out' ? 'ruled_out' : 'unchanged'),
    };
  });
  const edges = (frame(j.edges)?.rows ?? []).map((e) => [e[0], e[1]] as [number, number]);
  return {
    nodes,
    edges,
    changedCount: j.changed_count,
    impactedCount: nodes.filter((n) => n.impacted).length,
    totalNodes: j.total_nodes,
    singleEnv: j.single_env,
    warning: j._warning,
  };
}

// ---------------------------------------------------------------- model

export interface ModelColumn {
  name: string;
  type?: string;
  notNull?: boolean;
  unique?: boolean;
}

export interface ModelSide {
  columns: ModelColumn[];
  primaryKey: string[];
  keyBasis?: string;
  keyEvidence?: string;
  materialized?: string;
  code: string;
}

/** One structural change of a model's SQL (sql_diff's change). */
export interface CodeChangeItem {
  kind: string;
  column: string;
  scope: string;
  before: string;
  after: string;
}

/** get_model's code_change: what the SQL parser says changed in the code. */
export interface CodeChangeDetail {
  cosmetic: boolean;
  summary: string;
  changes: CodeChangeItem[];
  /** why raw code (Jinja not rendered) was compared, when it was */
  note?: string;
  /** a side whose SQL does not parse: nothing is guessed */
  error?: string;
}

export interface ModelDetail {
  base: ModelSide | null;
  current: ModelSide | null;
  /** get_model's code_change.summary, when the server gives one */
  codeChangeSummary?: string;
  codeChange?: CodeChangeDetail;
}

function modelSide(s: Json): ModelSide | null {
  // get_model answers {} for the side a model is absent from.
  if (!s || !s.unique_id) return null;
  const cols: Record<string, Json> = s.columns ?? {};
  const order: string[] = s.column_order ?? Object.keys(cols);
  const pk = s.primary_key_detail?.columns ?? (s.primary_key ? [].concat(s.primary_key) : []);
  return {
    columns: order.map((n) => ({ name: n, type: cols[n]?.type, notNull: cols[n]?.not_null, unique: cols[n]?.unique })),
    primaryKey: pk,
    keyBasis: s.primary_key_detail?.basis,
    keyEvidence: s.primary_key_detail?.evidence,
    materialized: s.materialized,
    code: s.raw_code ?? '',
  };
}

export async function getModel(id: string): Promise<ModelDetail> {
  return parseModel(await callOp('get_model', { model_id: id }));
}

/** Parses a get_model result. */
export function parseModel(j: Json): ModelDetail {
  const cc = j.code_change ?? j.model?.code_change;
  const d: ModelDetail = { base: modelSide(j.model?.base), current: modelSide(j.model?.current) };
  if (typeof cc?.summary === 'string' && cc.summary) d.codeChangeSummary = cc.summary;
  if (cc && typeof cc === 'object') {
    const err = cc.error;
    d.codeChange = {
      cosmetic: !!cc.cosmetic,
      summary: typeof cc.summary === 'string' ? cc.summary : '',
      changes: (Array.isArray(cc.changes) ? cc.changes : []).map((c: Json) => ({
        kind: String(c.kind ?? ''),
        column: String(c.column ?? ''),
        scope: String(c.scope ?? ''),
        before: String(c.before ?? ''),
        after: String(c.after ?? ''),
      })),
      note: typeof cc.note === 'string' && cc.note ? cc.note : undefined,
      error: err ? (typeof err === 'string' ? err : [err.side, err.message, err.line ? `line ${err.line}` : '', err.column ? `column ${err.column}` : ''].filter(Boolean).join(', ')) : undefined,
    };
  }
  return d;
}

export interface RowInput {
  node: string;
  column: string;
  kind: string;
}

export interface NodeDetail {
  id: string;
  name: string;
  description?: string;
  tests: string[];
  rowInputs: RowInput[];
  /** output column → transformation (identity, transformation, aggregation) */
  transformations: Record<string, string>;
}

export async function getNode(id: string): Promise<NodeDetail> {
  const j = await callOp('get_node', { node_id: id });
  return {
    id: j.unique_id,
    name: j.name,
    description: j.description,
    tests: (j.children ?? []).filter((c: string) => c.startsWith('test.')),
    rowInputs: (j.row_inputs ?? []).map((r: Json) => ({ node: r.column?.node, column: r.column?.column, kind: r.kind })),
    transformations: Object.fromEntries((j.columns ?? []).map((c: Json) => [c.name, c.transformation ?? ''])),
  };
}

export interface SchemaChange {
  nodeId: string;
  column: string;
  status: string;
  baseType: string | null;
  currentType: string | null;
}

export interface SchemaDiff {
  changes: SchemaChange[];
  /** complete, or partial when some nodes could not be compared */
  coverage: string;
  /** rows beyond SCHEMA_ROWS exist */
  more: boolean;
}

const SCHEMA_ROWS = 10000;

/** schema_diff's rows: the result itself is the DataFrame. */
function schemaChanges(j: Json): SchemaChange[] {
  return records(frame(j)).map((r) => ({
    nodeId: r.node_id as string,
    column: r.column as string,
    status: r.change_status as string,
    baseType: (r.base_type as string) ?? null,
    currentType: (r.current_type as string) ?? null,
  }));
}

/** Every node's changes, uncapped by rows (the default row cap is 100). */
export async function schemaDiff(nodeIds?: string[]): Promise<SchemaDiff> {
  const args: Json = { limit: SCHEMA_ROWS };
  if (nodeIds) args.node_id = nodeIds;
  const j = await callOp('schema_diff', args);
  return { changes: schemaChanges(j), coverage: j.schema_coverage?.status ?? 'unknown', more: !!j.more };
}

// ---------------------------------------------------------------- diffs
// Each diff has its argument builder (the check params are the same object)
// and a parser of its result, shared by the model panel, the impact triage
// and the checklist (a check's run result is the operation's result).

export const diffArgs = {
  rowCount: (models: string[]) => ({ node_names: models }),
  profile: (model: string, columns?: string[]) => (columns?.length ? { model, columns } : { model }),
  value: (model: string, primaryKey: string[], columns?: string[]) =>
    columns?.length ? { model, primary_key: primaryKey, columns } : { model, primary_key: primaryKey },
  valueDetail: (model: string, primaryKey: string[], limit = 200) => ({ model, primary_key: primaryKey, limit }),
  topK: (model: string, column: string, k = 10) => ({ model, column_name: column, k }),
  histogram: (model: string, column: string, bins = 20) => ({ model, column_name: column, num_bins: bins }),
  query: (sql: string, base: boolean) => (base ? { sql_template: sql, base: true } : { sql_template: sql }),
  queryDiff: (sql: string, primaryKeys: string[], baseSql?: string) => {
    const a: Json = { sql_template: sql };
    if (primaryKeys.length) a.primary_keys = primaryKeys;
    if (baseSql) a.base_sql_template = baseSql;
    return a;
  },
};

export interface RowCount {
  model: string;
  base: number | null;
  current: number | null;
  /** why a count is null (table_not_found, not_in_manifest, …) */
  baseStatus?: string;
  currentStatus?: string;
  baseMessage?: string;
  currentMessage?: string;
}

export interface ValueDiff {
  total: number;
  added: number;
  removed: number;
  changed: number;
  primaryKey: string[];
  columns: Frame | null;
}

export interface TopK {
  values: unknown[];
  counts: number[];
  valids: number;
  total: number;
}

export interface Histogram {
  labels: string[];
  base: number[];
  current: number[];
  baseTotal: number;
  currentTotal: number;
}

export interface QueryDiff {
  base: Frame | null;
  current: Frame | null;
  diff: Frame | null;
  summary?: { added: number; removed: number; changed: number };
}

/** A diff result with the warning that applies to all of it (single environment, …). */
export type DiffResult = DiffBody & { warning?: string };

type DiffBody =
  | { type: 'row_count_diff'; rows: RowCount[] }
  | { type: 'profile_diff'; base: Frame | null; current: Frame | null }
  | { type: 'value_diff'; value: ValueDiff }
  | { type: 'value_diff_detail'; frame: Frame | null; primaryKey: string[] }
  | { type: 'top_k_diff'; base: TopK | null; current: TopK | null }
  | { type: 'histogram_diff'; histogram: Histogram }
  | { type: 'query'; frame: Frame | null; sql?: string }
  | { type: 'query_diff'; diff: QueryDiff }
  | { type: 'schema_diff'; schema: SchemaChange[]; coverage: string }
  | { type: 'other'; op: string; raw: unknown };

/** Parses the result of a diff operation (or a check run of that type). */
export function parseDiff(type: string, j: Json): DiffResult {
  const body = diffBody(type, j ?? {});
  return typeof j?._warning === 'string' && j._warning ? { ...body, warning: j._warning } : body;
}

function diffBody(type: string, j: Json): DiffBody {
  switch (type) {
    case 'row_count_diff':
      // Flat, as the seed's: {<model>: {base, curr, base_meta, curr_meta}, run_id, _warning}.
      return {
        type,
        rows: Object.entries<Json>(j)
          .filter(([k, v]) => k !== 'run_id' && !k.startsWith('_') && v && typeof v === 'object')
          .map(([model, v]) => ({
            model,
            base: v.base ?? null,
            current: v.curr ?? null,
            baseStatus: v.base_meta?.status,
            currentStatus: v.curr_meta?.status,
            baseMessage: v.base_meta?.message,
            currentMessage: v.curr_meta?.message,
          })),
      };
    case 'profile_diff':
      return { type, base: frame(j.base), current: frame(j.current) };
    case 'value_diff':
      return {
        type,
        value: {
          total: j.summary?.total,
          added: j.summary?.added,
          removed: j.summary?.removed,
          changed: j.summary?.changed,
          primaryKey: j.primary_key ?? [],
          columns: frame(j.data),
        },
      };
    case 'value_diff_detail':
      return { type, frame: frame(j), primaryKey: j.primary_key ?? [] };
    case 'top_k_diff': {
      const side = (s: Json): TopK | null => (s ? { values: s.values, counts: s.counts, valids: s.valids, total: s.total } : null);
      return { type, base: side(j.base), current: side(j.current) };
    }
    case 'histogram_diff':
      return {
        type,
        histogram: {
          labels: j.labels ?? [],
          base: j.base?.counts ?? [],
          current: j.current?.counts ?? [],
          baseTotal: j.base?.total ?? 0,
          currentTotal: j.current?.total ?? 0,
        },
      };
    case 'query':
      return { type, frame: frame(j), sql: j.sql };
    case 'query_diff':
      return { type, diff: { base: frame(j.base), current: frame(j.current), diff: frame(j.diff), summary: j.summary } };
    case 'schema_diff':
      return { type, schema: schemaChanges(j), coverage: j.schema_coverage?.status ?? 'unknown' };
  }
  return { type: 'other', op: type, raw: j };
}

export async function runDiff(type: string, args: object): Promise<DiffResult> {
  return parseDiff(type, await callOp(type, args));
}

// ---------------------------------------------------------------- impact

export interface NextAction {
  tool: string;
  arguments: Record<string, unknown>;
  reason: string;
  priority: string;
}

export interface ImpactModel {
  name: string;
  id: string;
  classification: string;
  changeStatus: string | null;
  changeCategory?: string;
  changedColumns: string[];
  /** the key the value diff joined on (what triage found and verified) */
  primaryKey: string[];
  keySource?: string;
  rowsBase: number | null;
  rowsCurrent: number | null;
  rowsDelta: number | null;
  rowsDeltaPct: number | null;
  rowsNote?: string;
  /** null: could not be compared (not "unchanged") */
  schemaChanges: { column: string; status: string; baseType?: string; currentType?: string }[] | null;
  dataImpact: string;
  affectedRows: number | null;
  valueDiffSkipped?: string;
  /** a problem with this model's comparison */
  warning?: string;
  nextAction: NextAction | null;
}

export interface SuggestedCheck {
  type: string;
  name: string;
  description: string;
  params: Record<string, unknown>;
}

export interface Impact {
  models: ImpactModel[];
  notImpacted: string[];
  notImpactedByLineage: { name: string; id: string; reads: string[]; checkedAgainst: string[] }[];
  /** counts that add up: modified + added + removed + downstream = models */
  counts: { modified: number; added: number; removed: number; downstream: number; notImpacted: number };
  suggested: SuggestedCheck[];
  errors: unknown[];
  modifiedCount: number;
  downstreamCount: number;
  maxAffectedRows: number | null;
  classificationSource: string;
  warning?: string;
}

export async function impactAnalysis(): Promise<Impact> {
  // detail=full: the compact default shortens verified-unchanged models to
  // a row without unique_id or row counts, and drops the column-lineage evidence.
  return parseImpact(await callOp('impact_analysis', { detail: 'full' }));
}

/** Parses an impact_analysis result (full or compact). */
export function parseImpact(j: Json): Impact {
  const models = (j.confirmed_impacted_models ?? []).map(
    (m: Json): ImpactModel => ({
      name: m.name,
      id: m.unique_id,
      classification: m.classification,
      changeStatus: m.change_status ?? null,
      changeCategory: m.change_category,
      changedColumns: m.code_changed_columns ?? m.impacted_columns ?? [],
      primaryKey: m.primary_key ?? [],
      keySource: m.key_source,
      rowsBase: m.row_count?.base ?? null,
      rowsCurrent: m.row_count?.current ?? null,
      rowsDelta: m.row_count?.delta ?? null,
      rowsDeltaPct: m.row_count?.delta_pct ?? null,
      rowsNote: m.row_count?.base_status ?? m.row_count?.current_status,
      schemaChanges:
        m.schema_changes == null
          ? null
          : m.schema_changes.map((c: Json) => ({ column: c.column, status: c.change_status, baseType: c.base_type, currentType: c.current_type })),
      dataImpact: m.data_impact,
      affectedRows: m.affected_row_count ?? null,
      valueDiffSkipped: m.value_diff_skipped,
      warning: m.warning,
      nextAction: m.next_action
        ? { tool: m.next_action.tool, arguments: m.next_action.arguments ?? {}, reason: m.next_action.reason, priority: m.next_action.priority }
        : null,
    }),
  );
  return {
    models,
    notImpacted: j.confirmed_not_impacted_models ?? [],
    notImpactedByLineage: (j.not_impacted_by_column_lineage ?? []).map((n: Json) => ({ name: n.name, id: n.unique_id, reads: n.reads_columns ?? [], checkedAgainst: n.checked_against ?? [] })),
    counts: {
      modified: j.counts?.modified ?? 0,
      added: j.counts?.added ?? 0,
      removed: j.counts?.removed ?? 0,
      downstream: j.counts?.downstream ?? 0,
      notImpacted: j.counts?.not_impacted ?? 0,
    },
    suggested: (j.suggested_checks ?? []).map((s: Json) => ({ type: s.type, name: s.name, description: s.description ?? '', params: s.params ?? {} })),
    errors: j.errors ?? [],
    modifiedCount: j.modified_count,
    downstreamCount: j.downstream_count,
    maxAffectedRows: j.max_affected_row_count ?? null,
    classificationSource: j.classification_source,
    warning: j._warning,
  };
}

// ---------------------------------------------------------------- column lineage

export interface CllColumn {
  id: string;
  node: string;
  name: string;
  type?: string;
  transformation: string;
  changeStatus?: string;
  dependsOn: { node: string; column: string }[];
}

export interface CllNode {
  id: string;
  name: string;
  resourceType: string;
  changeStatus?: string;
  changeCategory?: string;
  opaque: boolean;
  opaqueReason?: string;
  /** column ids */
  columns: string[];
}

export interface Cll {
  nodes: Record<string, CllNode>;
  columns: Record<string, CllColumn>;
}

export async function getCll(node: string, column?: string): Promise<Cll> {
  const args: Json = { node_id: node, change_analysis: true };
  if (column) args.column = column;
  const j = await callOp('get_cll', args);
  const nodes: Record<string, CllNode> = {};
  for (const [id, n] of Object.entries<Json>(j.nodes ?? {})) {
    // `columns` is a list of column ids today; the seed contract makes it an object keyed by name.
    const cols = Array.isArray(n.columns) ? n.columns : Object.values<Json>(n.columns ?? {}).map((c) => c.id ?? c);
    nodes[id] = {
      id,
      name: n.name,
      resourceType: n.resource_type,
      changeStatus: n.change_status,
      changeCategory: n.change_category,
      opaque: !!n.opaque,
      opaqueReason: n.opaque_reason,
      columns: cols,
    };
  }
  const columns: Record<string, CllColumn> = {};
  for (const [id, c] of Object.entries<Json>(j.columns ?? {})) {
    columns[id] = {
      id,
      node: c.table_id,
      name: c.name,
      type: c.type,
      transformation: c.transformation_type,
      changeStatus: c.change_status,
      dependsOn: c.depends_on ?? [],
    };
  }
  return { nodes, columns };
}

export interface ImpactedColumn {
  node: string;
  column: string;
  /** value, row_set or opaque */
  reason: string;
  via?: { node: string; column: string };
  depth: number;
}

export async function columnImpact(node: string, columns: string[]): Promise<ImpactedColumn[]> {
  const j = await callOp('column_impact', { node_id: node, columns });
  return (j.columns ?? []).map((c: Json) => ({ node: c.node, column: c.column, reason: c.reason, via: c.via, depth: c.depth }));
}

// ---------------------------------------------------------------- checks

export interface Check {
  id: string;
  name: string;
  description: string;
  type: string;
  params: Record<string, unknown>;
  approved: boolean;
  preset: boolean;
  lastRunAt?: string;
  lastRunStatus?: string;
  lastRunError?: string;
  outdated: boolean;
  mismatched?: boolean;
}

export interface Checklist {
  checks: Check[];
  total: number;
  approved: number;
  outdated: number;
}

function check(c: Json): Check {
  return {
    id: c.check_id,
    name: c.name,
    description: c.description ?? '',
    type: c.type,
    params: c.params ?? {},
    approved: !!c.is_checked,
    preset: !!c.is_preset,
    lastRunAt: c.last_run_at,
    lastRunStatus: c.last_run_status,
    lastRunError: c.last_run_error,
    outdated: !!c.is_outdated,
    mismatched: c.mismatched,
  };
}

export async function listChecks(): Promise<Checklist> {
  const j = await callOp('list_checks', {});
  return { checks: (j.checks ?? []).map(check), total: j.total, approved: j.approved, outdated: j.outdated };
}

export interface CheckRun {
  id: string;
  status: string;
  error?: string;
  result: DiffResult | null;
}

function run(type: string, r: Json): CheckRun {
  return { id: r.run_id, status: r.status, error: r.error, result: r.result != null ? parseDiff(type, r.result) : null };
}

export interface CreatedCheck {
  id: string;
  /** false: a check of the same type and params existed (renamed, re-described) */
  created: boolean;
  runExecuted: boolean;
  runError?: string;
  runId?: string;
}

/**
 * create_check; with run, the check gets its evidence at once and a
 * successful run approves it. Same type and params update the check.
 */
export async function createCheck(c: { type: string; params: object; name: string; description?: string; run: boolean }): Promise<CreatedCheck> {
  const args: Json = { type: c.type, params: c.params, name: c.name, run: c.run };
  if (c.description !== undefined) args.description = c.description;
  const j = await callOp('create_check', args);
  return { id: j.check_id, created: !!j.created, runExecuted: !!j.run_executed, runError: j.run_error, runId: j.run_id };
}

export async function runCheck(id: string, type: string): Promise<CheckRun> {
  return run(type, await callOp('run_check', { check_id: id }));
}

export async function approveCheck(id: string, approved: boolean): Promise<Check> {
  return check((await callOp('approve_check', { check_id: id, approved })).check);
}

export async function deleteCheck(id: string): Promise<void> {
  await callOp('delete_check', { check_id: id });
}

export async function reorderCheck(id: string, index: number): Promise<void> {
  await callOp('reorder_check', { check_id: id, index });
}

export async function summaryMarkdown(): Promise<string> {
  return (await callOp('summary', {})).markdown;
}
