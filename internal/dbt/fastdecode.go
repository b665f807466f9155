package dbt

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// A single-pass decoder for the manifest and catalog shapes Ripple reads.
//
// encoding/json validates the whole input, then decodes it again through
// reflection: on a large manifest that costs about as much as decoding it
// into `any`. This decoder walks the bytes once, sets the fields Ripple
// reads directly and skips (while validating) everything else.
//
// It only has to be right on the common shape. Whenever the input is
// anything else — a syntax error, a value of an unexpected JSON type, a
// duplicate or case-folded key, an escape in a key, a number that is not an
// integer — it gives up and the caller decodes with encoding/json, so the
// result and every error message are exactly encoding/json's (the fuzz
// target FuzzFastDecode holds the two equal).

// fastDecoder walks data; ok turns false on the first thing it does not
// handle, after which every method is a no-op.
type fastDecoder struct {
	data []byte
	pos  int
	ok   bool
	// owned is true when data is never modified after decoding (a file
	// LoadEnv read for this decode): strings then point into it instead of
	// being copied, which saves an allocation and a copy per string.
	owned bool
}

func newFastDecoder(data []byte, owned bool) *fastDecoder {
	return &fastDecoder{data: data, ok: true, owned: owned}
}

// stringOf makes a string of b, sharing its bytes when the input is owned.
func (d *fastDecoder) stringOf(b []byte) string {
	if d.owned && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// special marks the bytes that end the plain run of a string body.
var special = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func (d *fastDecoder) fail() { d.ok = false }

func (d *fastDecoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (d *fastDecoder) peek() byte {
	d.ws()
	if !d.ok || d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

// end checks that only whitespace follows the top-level value.
func (d *fastDecoder) end() bool {
	d.ws()
	return d.ok && d.pos == len(d.data)
}

// literal consumes "null", "true" or "false".
func (d *fastDecoder) literal(lit string) bool {
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return true
	}
	d.fail()
	return false
}

// null consumes a null if one comes next.
func (d *fastDecoder) null() bool {
	if d.peek() == 'n' {
		return d.literal("null")
	}
	return false
}

// stringSpan scans a string starting at its opening quote and returns its
// contents; plain is false when it holds escapes or bytes that are not
// ASCII (the caller then decodes it with encoding/json's rules).
func (d *fastDecoder) stringSpan() (raw []byte, plain bool) {
	if d.peek() != '"' {
		d.fail()
		return nil, false
	}
	start := d.pos + 1
	plain = true
	data := d.data
	for i := start; i < len(data); i++ {
		// Eight bytes at a time while none of them is special.
		for i+8 <= len(data) && !hasSpecial(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		for i < len(data) && !special[data[i]] {
			i++
		}
		if i >= len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return d.data[start:i], plain
		case c == '\\':
			plain = false
			i++
			if i >= len(d.data) {
				d.fail()
				return nil, false
			}
			switch d.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d.data) {
					d.fail()
					return nil, false
				}
				for _, h := range d.data[i+1 : i+5] {
					if !isHex(h) {
						d.fail()
						return nil, false
					}
				}
				i += 4
			default:
				d.fail()
				return nil, false
			}
		case c < 0x20:
			d.fail()
			return nil, false
		case c >= 0x80:
			plain = false
		}
	}
	d.fail()
	return nil, false
}

// hasSpecial reports whether any byte of w is special: a quote, a
// backslash, a control character or a byte of a multi-byte character.
func hasSpecial(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(x uint64) uint64 { return (x - ones) & ^x & highs }
	return (hasZero(w^(ones*'"')) | hasZero(w^(ones*'\\')) | (w-ones*0x20)&^w&highs | w&highs) != 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// str decodes a string value; null leaves "" (as encoding/json leaves a
// string field untouched).
func (d *fastDecoder) str() string {
	if d.null() {
		return ""
	}
	start := d.pos
	raw, plain := d.stringSpan()
	if !d.ok {
		return ""
	}
	if plain {
		return d.stringOf(raw)
	}
	if utf8.Valid(raw) {
		if !hasByte(raw, '\\') {
			return d.stringOf(raw)
		}
		if s, ok := unescape(raw); ok {
			return s
		}
	}
	var s string
	if err := json.Unmarshal(d.data[start:d.pos], &s); err != nil {
		d.fail()
	}
	return s
}

// unescape decodes the escapes of a valid UTF-8 string body (compiled SQL
// is full of \n and \"); ok is false for a \u escape of a UTF-16
// surrogate, whose pairing rules encoding/json applies.
func unescape(raw []byte) (string, bool) {
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if j := bytes.IndexByte(raw[i:], '\\'); j != 0 {
			if j < 0 {
				b = append(b, raw[i:]...)
				break
			}
			b = append(b, raw[i:i+j]...)
			i += j
		}
		i++ // stringSpan checked that an escape is complete and valid
		switch raw[i] {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'u':
			v, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32)
			if err != nil || (0xd800 <= v && v < 0xe000) {
				return "", false
			}
			b = utf8.AppendRune(b, rune(v))
			i += 4
		default: // '"', '\\', '/'
			b = append(b, raw[i])
		}
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true // b is not used again
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// key reads an object key and its colon. Keys with escapes, non-ASCII bytes
// or upper-case letters are refused: encoding/json matches field names
// case-insensitively, which this decoder does not reproduce.
func (d *fastDecoder) key() []byte {
	raw, plain := d.stringSpan()
	if !plain {
		d.fail()
		return nil
	}
	for _, c := range raw {
		if 'A' <= c && c <= 'Z' {
			d.fail()
			return nil
		}
	}
	if d.peek() != ':' {
		d.fail()
		return nil
	}
	d.pos++
	return raw
}

// mapKey reads the key of a map entry (any string) and its colon.
func (d *fastDecoder) mapKey() string {
	if d.peek() != '"' {
		d.fail()
		return ""
	}
	k := d.str()
	if d.peek() != ':' {
		d.fail()
		return ""
	}
	d.pos++
	return k
}

// object steps through an object's members: call it with i = 0, 1, 2…
// (the member's index); it consumes '{', then ',' between members and the
// closing '}', and reports whether a member follows.
func (d *fastDecoder) object(i int) bool {
	if !d.ok {
		return false
	}
	if i == 0 {
		if d.peek() != '{' {
			d.fail()
			return false
		}
		d.pos++
		if d.peek() == '}' {
			d.pos++
			return false
		}
		return d.ok
	}
	switch d.peek() {
	case ',':
		d.pos++
		if d.peek() != '"' {
			d.fail()
			return false
		}
		return true
	case '}':
		d.pos++
		return false
	}
	d.fail()
	return false
}

// array is object's twin for arrays.
func (d *fastDecoder) array(i int) bool {
	if !d.ok {
		return false
	}
	if i == 0 {
		if d.peek() != '[' {
			d.fail()
			return false
		}
		d.pos++
		if d.peek() == ']' {
			d.pos++
			return false
		}
		return d.ok
	}
	switch d.peek() {
	case ',':
		d.pos++
		return true
	case ']':
		d.pos++
		return false
	}
	d.fail()
	return false
}

// seen marks field bit b of the current object; a repeated known key is
// refused (encoding/json merges a repeated object field into the first).
func (d *fastDecoder) seen(mask *uint64, b uint) {
	if *mask&(1<<b) != 0 {
		d.fail()
	}
	*mask |= 1 << b
}

// skip validates and skips any value.
func (d *fastDecoder) skip() {
	switch d.peek() {
	case '{':
		for i := 0; d.object(i); i++ {
			d.stringSpan()
			if d.peek() != ':' {
				d.fail()
				return
			}
			d.pos++
			d.skip()
		}
	case '[':
		for i := 0; d.array(i); i++ {
			d.skip()
		}
	case '"':
		d.stringSpan()
	case 'n':
		d.literal("null")
	case 't':
		d.literal("true")
	case 'f':
		d.literal("false")
	default:
		d.number()
	}
}

// number validates a JSON number and returns its text.
func (d *fastDecoder) number() []byte {
	start := d.pos
	i := d.pos
	n := len(d.data)
	if i < n && d.data[i] == '-' {
		i++
	}
	switch {
	case i < n && d.data[i] == '0':
		i++
	case i < n && '1' <= d.data[i] && d.data[i] <= '9':
		for i < n && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
	default:
		d.fail()
		return nil
	}
	if i < n && d.data[i] == '.' {
		i++
		if i >= n || d.data[i] < '0' || d.data[i] > '9' {
			d.fail()
			return nil
		}
		for i < n && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
	}
	if i < n && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < n && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if i >= n || d.data[i] < '0' || d.data[i] > '9' {
			d.fail()
			return nil
		}
		for i < n && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
	}
	d.pos = i
	return d.data[start:i]
}

// raw returns a copy of the next value's bytes, as json.RawMessage keeps them.
func (d *fastDecoder) raw() json.RawMessage {
	d.ws()
	start := d.pos
	d.skip()
	if !d.ok {
		return nil
	}
	return append(json.RawMessage(nil), d.data[start:d.pos]...)
}

// strings decodes a list of strings (null: nil; a null element: "").
func (d *fastDecoder) strings() []string {
	if d.null() {
		return nil
	}
	out := []string{}
	for i := 0; d.array(i); i++ {
		out = append(out, d.str())
	}
	return out
}

// integer decodes a number into an int the way encoding/json does, and
// refuses anything it would reject (fractions, exponents, overflow).
func (d *fastDecoder) integer() int {
	if d.peek() == 'n' {
		d.fail() // null into an int: leave it to encoding/json
		return 0
	}
	v, err := strconv.ParseInt(string(d.number()), 10, 64)
	if err != nil || int64(int(v)) != v {
		d.fail()
	}
	return int(v)
}

// boolean decodes true or false.
func (d *fastDecoder) boolean() bool {
	switch d.peek() {
	case 't':
		return d.literal("true")
	case 'f':
		d.literal("false")
		return false
	}
	d.fail()
	return false
}

// metadata decodes the artifact header.
func (d *fastDecoder) metadata(m *Metadata) {
	var mask uint64
	for i := 0; d.object(i); i++ {
		switch string(d.key()) {
		case "dbt_schema_version":
			d.seen(&mask, 0)
			m.SchemaVersion = d.str()
		case "dbt_version":
			d.seen(&mask, 1)
			m.DbtVersion = d.str()
		case "generated_at":
			d.seen(&mask, 2)
			m.GeneratedAt = d.str()
		case "invocation_id":
			d.seen(&mask, 3)
			m.InvocationID = d.str()
		case "project_name":
			d.seen(&mask, 4)
			m.ProjectName = d.str()
		case "project_id":
			d.seen(&mask, 5)
			m.ProjectID = d.str()
		case "adapter_type":
			d.seen(&mask, 6)
			m.AdapterType = d.str()
		case "env":
			d.seen(&mask, 7)
			if d.null() {
				m.Env = nil
				continue
			}
			m.Env = map[string]string{}
			for j := 0; d.object(j); j++ {
				k := d.mapKey()
				m.Env[k] = d.str()
			}
		default:
			d.skip()
		}
	}
}

// dependsOn decodes depends_on.
func (d *fastDecoder) dependsOn(out *DependsOn) {
	var mask uint64
	for i := 0; d.object(i); i++ {
		switch string(d.key()) {
		case "macros":
			d.seen(&mask, 0)
			out.Macros = d.strings()
		case "nodes":
			d.seen(&mask, 1)
			out.Nodes = d.strings()
		default:
			d.skip()
		}
	}
}

// constraints decodes a list of constraints.
func (d *fastDecoder) constraints() []Constraint {
	if d.null() {
		return nil
	}
	out := []Constraint{}
	for i := 0; d.array(i); i++ {
		var c Constraint
		var mask uint64
		for j := 0; d.object(j); j++ {
			switch string(d.key()) {
			case "type":
				d.seen(&mask, 0)
				c.Type = d.str()
			case "name":
				d.seen(&mask, 1)
				c.Name = d.str()
			case "expression":
				d.seen(&mask, 2)
				c.Expression = d.str()
			case "columns":
				d.seen(&mask, 3)
				c.Columns = d.strings()
			case "to":
				d.seen(&mask, 4)
				c.To = d.str()
			case "to_columns":
				d.seen(&mask, 5)
				c.ToColumns = d.strings()
			default:
				d.skip()
			}
		}
		out = append(out, c)
	}
	return out
}

// contract decodes a contract object.
func (d *fastDecoder) contract(c *Contract) {
	var mask uint64
	for i := 0; d.object(i); i++ {
		switch string(d.key()) {
		case "enforced":
			d.seen(&mask, 0)
			c.Enforced = d.boolean()
		case "checksum":
			d.seen(&mask, 1)
			c.Checksum = d.str()
		default:
			d.skip()
		}
	}
}

// checksum decodes dbt's {"name","checksum"} or a bare string.
func (d *fastDecoder) checksum(c *Checksum) {
	if d.peek() == '"' {
		c.Name = ""
		c.Checksum = d.str()
		return
	}
	var mask uint64
	for i := 0; d.object(i); i++ {
		switch string(d.key()) {
		case "name":
			d.seen(&mask, 0)
			c.Name = d.str()
		case "checksum":
			d.seen(&mask, 1)
			c.Checksum = d.str()
		default:
			d.skip()
		}
	}
}

// columns decodes a node's documented columns.
func (d *fastDecoder) columns() map[string]*Column {
	if d.null() {
		return nil
	}
	// Collected first so that the map is made at its size (no regrowth).
	var keys [32]string
	var vals [32]*Column
	ks, vs := keys[:0], vals[:0]
	for i := 0; d.object(i); i++ {
		ks = append(ks, d.mapKey())
		if d.null() {
			vs = append(vs, nil)
			continue
		}
		c := &Column{}
		var mask uint64
		for j := 0; d.object(j); j++ {
			switch string(d.key()) {
			case "name":
				d.seen(&mask, 0)
				c.Name = d.str()
			case "description":
				d.seen(&mask, 1)
				c.Description = d.str()
			case "data_type":
				d.seen(&mask, 2)
				c.DataType = d.str()
			case "constraints":
				d.seen(&mask, 3)
				c.Constraints = d.constraints()
			case "tags":
				d.seen(&mask, 4)
				c.Tags = d.strings()
			case "meta":
				d.seen(&mask, 5)
				c.Meta = d.raw()
			default:
				d.skip()
			}
		}
		vs = append(vs, c)
	}
	out := make(map[string]*Column, len(ks))
	for i, k := range ks {
		out[k] = vs[i]
	}
	return out
}

// testMetadata decodes a generic test's metadata.
func (d *fastDecoder) testMetadata() *TestMetadata {
	if d.null() {
		return nil
	}
	t := &TestMetadata{}
	var mask uint64
	for i := 0; d.object(i); i++ {
		switch string(d.key()) {
		case "name":
			d.seen(&mask, 0)
			t.Name = d.str()
		case "namespace":
			d.seen(&mask, 1)
			t.Namespace = d.str()
		case "kwargs":
			d.seen(&mask, 2)
			if d.null() {
				t.Kwargs = nil
				continue
			}
			t.Kwargs = map[string]json.RawMessage{}
			for j := 0; d.object(j); j++ {
				k := d.mapKey()
				t.Kwargs[k] = d.raw()
			}
		default:
			d.skip()
		}
	}
	return t
}

// node decodes one manifest entry; null is a nil node.
func (d *fastDecoder) node() *Node {
	if d.null() {
		return nil
	}
	n := &Node{}
	var mask uint64
	for i := 0; d.object(i); i++ {
		switch string(d.key()) {
		case "unique_id":
			d.seen(&mask, 0)
			n.UniqueID = d.str()
		case "name":
			d.seen(&mask, 1)
			n.Name = d.str()
		case "resource_type":
			d.seen(&mask, 2)
			n.ResourceType = d.str()
		case "package_name":
			d.seen(&mask, 3)
			n.PackageName = d.str()
		case "path":
			d.seen(&mask, 4)
			n.Path = d.str()
		case "original_file_path":
			d.seen(&mask, 5)
			n.OriginalFilePath = d.str()
		case "fqn":
			d.seen(&mask, 6)
			n.FQN = d.strings()
		case "alias":
			d.seen(&mask, 7)
			n.Alias = d.str()
		case "database":
			d.seen(&mask, 8)
			n.Database = d.str()
		case "schema":
			d.seen(&mask, 9)
			n.Schema = d.str()
		case "identifier":
			d.seen(&mask, 10)
			n.Identifier = d.str()
		case "source_name":
			d.seen(&mask, 11)
			n.SourceName = d.str()
		case "relation_name":
			d.seen(&mask, 12)
			n.RelationName = d.str()
		case "checksum":
			d.seen(&mask, 13)
			if d.peek() == 'n' {
				d.fail() // null: encoding/json's Checksum.UnmarshalJSON decides
			}
			d.checksum(&n.Checksum)
		case "config":
			d.seen(&mask, 14)
			n.ConfigRaw = d.raw()
		case "unrendered_config":
			d.seen(&mask, 15)
			n.UnrenderedConfig = d.raw()
		case "tags":
			d.seen(&mask, 16)
			n.Tags = d.strings()
		case "description":
			d.seen(&mask, 17)
			n.Description = d.str()
		case "columns":
			d.seen(&mask, 18)
			n.Columns = d.columns()
		case "raw_code":
			d.seen(&mask, 19)
			n.RawCode = d.str()
		case "raw_sql":
			d.seen(&mask, 20)
			n.RawSQL = d.str()
		case "compiled_code":
			d.seen(&mask, 21)
			n.CompiledCode = d.str()
		case "language":
			d.seen(&mask, 22)
			n.Language = d.str()
		case "depends_on":
			d.seen(&mask, 23)
			d.dependsOn(&n.DependsOn)
		case "constraints":
			d.seen(&mask, 24)
			n.Constraints = d.constraints()
		case "contract":
			d.seen(&mask, 25)
			d.contract(&n.Contract)
		case "test_metadata":
			d.seen(&mask, 26)
			n.TestMetadata = d.testMetadata()
		case "column_name":
			d.seen(&mask, 27)
			n.ColumnName = d.str()
		case "attached_node":
			d.seen(&mask, 28)
			n.AttachedNode = d.str()
		case "version":
			d.seen(&mask, 29)
			n.Version = d.raw()
		case "meta":
			d.seen(&mask, 30)
			n.Meta = d.raw()
		// The semantic layer's keys (SemanticFields, SemanticFieldKeys).
		case "type":
			d.seen(&mask, 31)
			n.Type = d.raw()
		case "owner":
			d.seen(&mask, 32)
			n.Owner = d.raw()
		case "maturity":
			d.seen(&mask, 33)
			n.Maturity = d.raw()
		case "url":
			d.seen(&mask, 34)
			n.URL = d.raw()
		case "label":
			d.seen(&mask, 35)
			n.Label = d.raw()
		case "type_params":
			d.seen(&mask, 36)
			n.TypeParams = d.raw()
		case "filter":
			d.seen(&mask, 37)
			n.Filter = d.raw()
		case "node_relation":
			d.seen(&mask, 38)
			n.NodeRelation = d.raw()
		case "model":
			d.seen(&mask, 39)
			n.ModelRef = d.raw()
		case "entities":
			d.seen(&mask, 40)
			n.Entities = d.raw()
		case "dimensions":
			d.seen(&mask, 41)
			n.Dimensions = d.raw()
		case "measures":
			d.seen(&mask, 42)
			n.Measures = d.raw()
		case "defaults":
			d.seen(&mask, 43)
			n.Defaults = d.raw()
		case "query_params":
			d.seen(&mask, 44)
			n.QueryParams = d.raw()
		case "given":
			d.seen(&mask, 45)
			n.Given = d.raw()
		case "expect":
			d.seen(&mask, 46)
			n.Expect = d.raw()
		default:
			d.skip()
		}
	}
	return n
}

// nodes decodes a map of entries.
func (d *fastDecoder) nodes() map[string]*Node {
	if d.null() {
		return nil
	}
	var ks []string
	var vs []*Node
	for i := 0; d.object(i); i++ {
		ks = append(ks, d.mapKey())
		vs = append(vs, d.node())
	}
	out := make(map[string]*Node, len(ks)) // made at its size: no regrowth
	for i, k := range ks {
		out[k] = vs[i]
	}
	return out
}

// stringLists decodes parent_map / child_map.
func (d *fastDecoder) stringLists() map[string][]string {
	if d.null() {
		return nil
	}
	out := map[string][]string{}
	for i := 0; d.object(i); i++ {
		k := d.mapKey()
		out[k] = d.strings()
	}
	return out
}

// macros decodes the macros section.
func (d *fastDecoder) macros() map[string]*Macro {
	if d.null() {
		return nil
	}
	out := map[string]*Macro{}
	for i := 0; d.object(i); i++ {
		k := d.mapKey()
		if d.null() {
			out[k] = nil
			continue
		}
		m := &Macro{}
		var mask uint64
		for j := 0; d.object(j); j++ {
			switch string(d.key()) {
			case "unique_id":
				d.seen(&mask, 0)
				m.UniqueID = d.str()
			case "name":
				d.seen(&mask, 1)
				m.Name = d.str()
			case "package_name":
				d.seen(&mask, 2)
				m.PackageName = d.str()
			case "macro_sql":
				d.seen(&mask, 3)
				m.MacroSQL = d.str()
			case "depends_on":
				d.seen(&mask, 4)
				d.dependsOn(&m.DependsOn)
			default:
				d.skip()
			}
		}
		out[k] = m
	}
	return out
}

// fastManifest decodes a whole manifest; ok is false when encoding/json
// must decide.
func fastManifest(data []byte, owned bool) (*Manifest, bool) {
	d := newFastDecoder(data, owned)
	m := &Manifest{}
	var mask uint64
	for i := 0; d.object(i); i++ {
		switch string(d.key()) {
		case "metadata":
			d.seen(&mask, 0)
			d.metadata(&m.Metadata)
		case "nodes":
			d.seen(&mask, 1)
			m.Nodes = d.nodes()
		case "sources":
			d.seen(&mask, 2)
			m.Sources = d.nodes()
		case "macros":
			d.seen(&mask, 3)
			m.Macros = d.macros()
		case "exposures":
			d.seen(&mask, 4)
			m.Exposures = d.nodes()
		case "metrics":
			d.seen(&mask, 5)
			m.Metrics = d.nodes()
		case "semantic_models":
			d.seen(&mask, 6)
			m.SemanticModels = d.nodes()
		case "saved_queries":
			d.seen(&mask, 7)
			m.SavedQueries = d.nodes()
		case "unit_tests":
			d.seen(&mask, 8)
			m.UnitTests = d.nodes()
		case "disabled":
			d.seen(&mask, 9)
			if d.null() {
				m.Disabled = nil
				continue
			}
			m.Disabled = map[string][]*Node{}
			for j := 0; d.object(j); j++ {
				k := d.mapKey()
				if d.null() {
					m.Disabled[k] = nil
					continue
				}
				list := []*Node{}
				for l := 0; d.array(l); l++ {
					list = append(list, d.node())
				}
				m.Disabled[k] = list
			}
		case "parent_map":
			d.seen(&mask, 10)
			m.ParentMap = d.stringLists()
		case "child_map":
			d.seen(&mask, 11)
			m.ChildMap = d.stringLists()
		default:
			d.skip()
		}
	}
	if !d.end() {
		return nil, false
	}
	return m, true
}

// catalogEntries decodes a catalog section.
func (d *fastDecoder) catalogEntries() map[string]*CatalogEntry {
	if d.null() {
		return nil
	}
	var ks []string
	var vs []*CatalogEntry
	for i := 0; d.object(i); i++ {
		ks = append(ks, d.mapKey())
		if d.null() {
			vs = append(vs, nil)
			continue
		}
		e := &CatalogEntry{}
		var mask uint64
		for j := 0; d.object(j); j++ {
			switch string(d.key()) {
			case "unique_id":
				d.seen(&mask, 0)
				e.UniqueID = d.str()
			case "metadata":
				d.seen(&mask, 1)
				var mm uint64
				for l := 0; d.object(l); l++ {
					switch string(d.key()) {
					case "type":
						d.seen(&mm, 0)
						e.Metadata.Type = d.str()
					case "database":
						d.seen(&mm, 1)
						e.Metadata.Database = d.str()
					case "schema":
						d.seen(&mm, 2)
						e.Metadata.Schema = d.str()
					case "name":
						d.seen(&mm, 3)
						e.Metadata.Name = d.str()
					case "comment":
						d.seen(&mm, 4)
						e.Metadata.Comment = d.str()
					case "owner":
						d.seen(&mm, 5)
						e.Metadata.Owner = d.str()
					default:
						d.skip()
					}
				}
			case "columns":
				d.seen(&mask, 2)
				if d.null() {
					e.Columns = nil
					continue
				}
				var keys [32]string
				var vals [32]*CatalogColumn
				ks, vs := keys[:0], vals[:0]
				for l := 0; d.object(l); l++ {
					ks = append(ks, d.mapKey())
					if d.null() {
						vs = append(vs, nil)
						continue
					}
					c := &CatalogColumn{}
					var cm uint64
					for q := 0; d.object(q); q++ {
						switch string(d.key()) {
						case "name":
							d.seen(&cm, 0)
							c.Name = d.str()
						case "type":
							d.seen(&cm, 1)
							c.Type = d.str()
						case "index":
							d.seen(&cm, 2)
							c.Index = d.integer()
						case "comment":
							d.seen(&cm, 3)
							c.Comment = d.str()
						default:
							d.skip()
						}
					}
					vs = append(vs, c)
				}
				e.Columns = make(map[string]*CatalogColumn, len(ks)) // at its size
				for i, k := range ks {
					e.Columns[k] = vs[i]
				}
			default:
				d.skip()
			}
		}
		vs = append(vs, e)
	}
	out := make(map[string]*CatalogEntry, len(ks)) // made at its size: no regrowth
	for i, k := range ks {
		out[k] = vs[i]
	}
	return out
}

// fastCatalog decodes a whole catalog; ok is false when encoding/json must
// decide.
func fastCatalog(data []byte, owned bool) (*Catalog, bool) {
	d := newFastDecoder(data, owned)
	c := &Catalog{}
	var mask uint64
	for i := 0; d.object(i); i++ {
		switch string(d.key()) {
		case "metadata":
			d.seen(&mask, 0)
			d.metadata(&c.Metadata)
		case "nodes":
			d.seen(&mask, 1)
			c.Nodes = d.catalogEntries()
		case "sources":
			d.seen(&mask, 2)
			c.Sources = d.catalogEntries()
		default:
			d.skip()
		}
	}
	if !d.end() {
		return nil, false
	}
	return c, true
}
