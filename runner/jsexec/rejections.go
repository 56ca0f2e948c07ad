package jsexec

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/fastschema/qjs"
)

// Node ends a run when a promise is rejected and no handler is attached by
// the time the ticks and promise jobs after the macrotask ran
// (--unhandled-rejections=throw). Only the engine sees every rejection (an
// async function's promise is made inside QuickJS), and QuickJS reports
// them through its host promise rejection tracker,
// JSRuntime.host_promise_rejection_tracker: tracker(ctx, promise, reason,
// is_handled, opaque), called when a promise is rejected with no handler
// (is_handled false) and when a handler is then attached to it (true).
// qjs never sets it and exports no setter, so addRejectionTracker appends
// to the wasm a function of that signature that calls a JavaScript
// function (the prelude's track, its JSValue stored at opaque) with
// (promise, reason, is_handled) and puts it in the function table;
// hookRejections stores its table slot and opaque in the JSRuntime.

// Offsets in qjs v0.0.6's JSRuntime (wasm32) of the tracker and its opaque
// argument, as QuickJS's two call sites load them (addRejectionTracker
// checks), and of the JSRuntime pointer in a JSContext.
const (
	rtTrackerOffset = 172
	rtOpaqueOffset  = 176
	ctxRTOffset     = 16
)

// Wasm encodings used below.
const (
	wasmI32     = 0x7f
	wasmI64     = 0x7e
	wasmFuncRef = 0x70
)

// Signatures, as wasmReader.funcType writes them: the tracker's, and those
// of the two exports it calls, QJS_Call(ctx, func, this, argc, argv) and
// JS_FreeValue(ctx, value).
var (
	trackerType = string([]byte{wasmI32, wasmI64, wasmI64, wasmI32, wasmI32}) + ">"
	callType    = string([]byte{wasmI32, wasmI64, wasmI64, wasmI32, wasmI64}) + ">" + string([]byte{wasmI64})
	freeType    = string([]byte{wasmI32, wasmI64}) + ">"
)

// wasmReader reads a section's payload; the first error sticks.
type wasmReader struct {
	b   []byte
	p   int
	err error
}

var errShortSection = errors.New("jsexec: wasm: section ends early")

func (r *wasmReader) u() uint64 {
	if r.err != nil {
		return 0
	}
	if r.p >= len(r.b) {
		r.err = errShortSection
		return 0
	}
	v, n, err := uleb(r.b[r.p:])
	r.p += n
	r.err = err
	return v
}

func (r *wasmReader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.p) {
		r.err = errShortSection
		return nil
	}
	r.p += int(n)
	return r.b[r.p-int(n) : r.p]
}

func (r *wasmReader) byte() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

// funcType reads a function type as "params>results" (value type bytes).
func (r *wasmReader) funcType() string {
	if r.byte() != 0x60 && r.err == nil {
		r.err = errors.New("jsexec: wasm: unexpected type form")
	}
	params := r.bytes(r.u())
	return string(params) + ">" + string(r.bytes(r.u()))
}

// rest returns what is left of the payload.
func (r *wasmReader) rest() []byte { return r.b[r.p:] }

// wasmModule is what addRejectionTracker reads of QuickJS's wasm.
type wasmModule struct {
	secs      []wasmSection
	index     map[byte]int // of each known section in secs
	types     []string
	funcTypes []uint64 // of each function, imports first
	imported  int
	exports   map[string]uint64
}

func (m *wasmModule) reader(id byte) *wasmReader {
	return &wasmReader{b: m.secs[m.index[id]].payload}
}

func readModule(wasm []byte) (*wasmModule, error) {
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	m := &wasmModule{secs: secs, index: map[byte]int{}, exports: map[string]uint64{}}
	for i, s := range secs {
		if s.id != 0 {
			m.index[s.id] = i
		}
	}
	for _, id := range []byte{1, 2, 3, 4, 6, 7, 9, 10} {
		if _, ok := m.index[id]; !ok {
			return nil, fmt.Errorf("jsexec: wasm: no section %d", id)
		}
	}
	r := m.reader(1)
	for n := r.u(); n > 0 && r.err == nil; n-- {
		m.types = append(m.types, r.funcType())
	}
	imports := m.reader(2)
	for n := imports.u(); n > 0 && imports.err == nil; n-- {
		imports.bytes(imports.u()) // module
		imports.bytes(imports.u()) // name
		if imports.byte() != 0 {
			return nil, errors.New("jsexec: wasm: an import other than a function")
		}
		m.funcTypes = append(m.funcTypes, imports.u())
	}
	m.imported = len(m.funcTypes)
	funcs := m.reader(3)
	for n := funcs.u(); n > 0 && funcs.err == nil; n-- {
		m.funcTypes = append(m.funcTypes, funcs.u())
	}
	exports := m.reader(7)
	for n := exports.u(); n > 0 && exports.err == nil; n-- {
		name := string(exports.bytes(exports.u()))
		if kind, idx := exports.byte(), exports.u(); kind == 0 {
			m.exports[name] = idx
		}
	}
	if err := errors.Join(r.err, imports.err, funcs.err, exports.err); err != nil {
		return nil, err
	}
	return m, nil
}

// typeIndex returns the index of the function type sig.
func (m *wasmModule) typeIndex(sig string) (uint64, error) {
	for i, t := range m.types {
		if t == sig {
			return uint64(i), nil
		}
	}
	return 0, errors.New("jsexec: wasm: no rejection tracker type")
}

// export returns the index of the exported function name, of type sig.
func (m *wasmModule) export(name, sig string) (uint64, error) {
	idx, ok := m.exports[name]
	if !ok || idx >= uint64(len(m.funcTypes)) || m.funcTypes[idx] >= uint64(len(m.types)) || m.types[m.funcTypes[idx]] != sig {
		return 0, fmt.Errorf("jsexec: wasm: no function %s of the expected type", name)
	}
	return idx, nil
}

// checkTrackerCalls makes sure QuickJS calls the tracker twice, through
// call_indirect of typeIdx right after loading rt->opaque at
// rtOpaqueOffset, having loaded rt->tracker at rtTrackerOffset.
func (m *wasmModule) checkTrackerCalls(typeIdx uint64) error {
	code := m.secs[m.index[10]].payload
	loadOpaque := append([]byte{0x28, 0x02}, appendULEB(nil, rtOpaqueOffset)...)
	loadOpaque = append(loadOpaque, 0x20) // then local.get of the tracker
	callIndirect := append(append([]byte{0x11}, appendULEB(nil, typeIdx)...), 0)
	calls := 0
	for p := 0; ; {
		i := bytes.Index(code[p:], loadOpaque)
		if i < 0 {
			break
		}
		p += i + len(loadOpaque)
		if len(code) > p+1 && bytes.HasPrefix(code[p+1:], callIndirect) {
			calls++
		}
	}
	loadTracker := append([]byte{0x28, 0x02}, appendULEB(nil, rtTrackerOffset)...)
	if calls != 2 || bytes.Count(code, loadTracker) < 2 {
		return fmt.Errorf("jsexec: wasm: %d calls of the rejection tracker where expected, want 2", calls)
	}
	return nil
}

// addTableSlot appends function fn to the function table, which one
// element segment fills from some offset to its fixed size, and returns
// its slot.
func (m *wasmModule) addTableSlot(fn uint64) (uint64, error) {
	r := m.reader(4)
	if r.u() != 1 || r.byte() != wasmFuncRef || r.byte() != 1 {
		return 0, errors.New("jsexec: wasm: unexpected table section")
	}
	tableMin, tableMax := r.u(), r.u()
	r = m.reader(9)
	if r.u() != 1 || r.byte() != 0 || r.byte() != 0x41 {
		return 0, errors.New("jsexec: wasm: unexpected element section")
	}
	offset := r.u()
	if r.byte() != 0x0b {
		return 0, errors.New("jsexec: wasm: unexpected element offset")
	}
	head := r.b[:r.p]
	count := r.u()
	if r.err != nil || tableMin != tableMax || offset+count != tableMin {
		return 0, fmt.Errorf("jsexec: wasm: a table of %d..%d slots with elements %d+%d (%v)", tableMin, tableMax, offset, count, r.err)
	}
	slot := tableMin
	m.secs[m.index[4]].payload = appendULEB(appendULEB([]byte{1, wasmFuncRef, 1}, slot+1), slot+1)
	elem := appendULEB(append([]byte(nil), head...), count+1)
	m.secs[m.index[9]].payload = appendULEB(append(elem, r.rest()...), fn)
	return slot, nil
}

// addFunction appends a function of type typeIdx with body (locals and
// code) and returns its index.
func (m *wasmModule) addFunction(typeIdx uint64, body []byte) uint64 {
	funcs := m.reader(3)
	n := funcs.u()
	sec := appendULEB(nil, n+1)
	sec = append(sec, funcs.rest()...)
	m.secs[m.index[3]].payload = appendULEB(sec, typeIdx)
	code := m.reader(10)
	sec = appendULEB(nil, code.u()+1)
	sec = append(sec, code.rest()...)
	sec = appendULEB(sec, uint64(len(body)))
	m.secs[m.index[10]].payload = append(sec, body...)
	m.funcTypes = append(m.funcTypes, typeIdx)
	return uint64(len(m.funcTypes) - 1)
}

// addRejectionTracker returns wasm with the tracker function (see above)
// added, and its function table slot.
func addRejectionTracker(wasm []byte) ([]byte, uint32, error) {
	m, err := readModule(wasm)
	if err != nil {
		return nil, 0, err
	}
	typeIdx, err := m.typeIndex(trackerType)
	if err != nil {
		return nil, 0, err
	}
	if err := m.checkTrackerCalls(typeIdx); err != nil {
		return nil, 0, err
	}
	call, err := m.export("QJS_Call", callType)
	if err != nil {
		return nil, 0, err
	}
	free, err := m.export("JS_FreeValue", freeType)
	if err != nil {
		return nil, 0, err
	}
	if code := m.reader(10); code.u() != uint64(len(m.funcTypes)-m.imported) || code.err != nil {
		return nil, 0, errors.New("jsexec: wasm: code and function sections differ")
	}
	// Global 0 is clang's stack pointer: the call's arguments go in a
	// 32-byte frame below it.
	if g := m.secs[m.index[6]].payload; len(g) < 3 || g[0] < 1 || g[1] != wasmI32 || g[2] != 1 {
		return nil, 0, errors.New("jsexec: wasm: global 0 is not the stack pointer")
	}
	// tracker(ctx, promise, reason, handled, opaque) calls the function
	// whose JSValue is at opaque, with itself as this, on the frame
	// [promise, reason, handled as an int JSValue (tag 0)], and frees
	// what it returns.
	body := []byte{
		1, 1, wasmI32, // local 5: sp
		0x23, 0, 0x41, 32, 0x6b, 0x22, 5, 0x24, 0, // sp = stack pointer - 32
		0x20, 5, 0x20, 1, 0x37, 3, 0, // [sp] = promise
		0x20, 5, 0x20, 2, 0x37, 3, 8, // [sp+8] = reason
		0x20, 5, 0x20, 3, 0xad, 0x37, 3, 16, // [sp+16] = handled
		0x20, 0, // ctx, for JS_FreeValue
		0x20, 0, 0x20, 4, 0x29, 3, 0, 0x20, 4, 0x29, 3, 0, 0x41, 3, 0x20, 5, 0xad, // ctx, fn, fn, 3, sp
		0x10,
	}
	body = append(appendULEB(body, call), 0x10)
	body = appendULEB(body, free)
	body = append(body, 0x20, 5, 0x41, 32, 0x6a, 0x24, 0, 0x0b) // restore the stack pointer
	slot, err := m.addTableSlot(m.addFunction(typeIdx, body))
	if err != nil {
		return nil, 0, err
	}
	return joinSections(wasm, m.secs), uint32(slot), nil
}

// rejectionHook is the tracker set in one runtime.
type rejectionHook struct {
	rt     *qjs.Runtime
	jsrt   uint32 // JSRuntime*
	opaque uint32 // holds fn's JSValue
	fn     *qjs.Value
}

// hookRejections makes QuickJS call fn(promise, reason, handled) through
// the tracker at table slot; fn is the hook's until unhook.
func hookRejections(rt *qjs.Runtime, fn *qjs.Value, slot uint32) (*rejectionHook, error) {
	mem := rt.Mem()
	jsrt, err := mem.ReadUint32(uint32(rt.Raw())) // QJSRuntime.runtime
	if err != nil {
		return nil, fmt.Errorf("jsexec: rejection tracker: %w", err)
	}
	if viaCtx, err := mem.ReadUint32(uint32(rt.Context().Raw()) + ctxRTOffset); err != nil || viaCtx != jsrt {
		return nil, errors.New("jsexec: rejection tracker: the JSRuntime is not where expected")
	}
	if cur, err := mem.ReadUint32(jsrt + rtTrackerOffset); err != nil || cur != 0 {
		return nil, errors.New("jsexec: rejection tracker: already set, or not where expected")
	}
	opaque := uint32(rt.Malloc(8))
	err = errors.Join(mem.WriteUint64(opaque, fn.Raw()),
		mem.WriteUint32(jsrt+rtOpaqueOffset, opaque),
		mem.WriteUint32(jsrt+rtTrackerOffset, slot))
	if err != nil {
		return nil, fmt.Errorf("jsexec: rejection tracker: %w", err)
	}
	return &rejectionHook{rt: rt, jsrt: jsrt, opaque: opaque, fn: fn}, nil
}

// unhook removes the tracker and frees its function, before the runtime
// is freed.
func (h *rejectionHook) unhook() {
	// After a time limit or process.exit the engine is stopped: nothing
	// to free then (rt.Close recovers likewise).
	defer func() { _ = recover() }()
	mem := h.rt.Mem()
	_ = mem.WriteUint32(h.jsrt+rtTrackerOffset, 0)
	_ = mem.WriteUint32(h.jsrt+rtOpaqueOffset, 0)
	h.fn.Free()
	h.rt.FreeHandle(uint64(h.opaque))
}
