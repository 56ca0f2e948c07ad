package jsexec

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
)

// QuickJS's memory limit does not bound what a script holds in all (see
// wasmPages), so a script could grow the wasm memory to 4 GiB. capMemory
// rewrites the module's memory section to declare a maximum, which wazero
// enforces: memory.grow fails and QuickJS reports "out of memory".

func uleb(b []byte) (uint64, int, error) {
	var v uint64
	var shift uint
	for i, c := range b {
		if shift > 63 {
			break
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1, nil
		}
		shift += 7
	}
	return 0, 0, errors.New("jsexec: bad LEB128 in wasm")
}

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// capMemory returns a copy of wasm whose single memory has maxPages pages
// (64 KiB each) at most.
func capMemory(wasm []byte, maxPages uint32) ([]byte, error) {
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	found := false
	for i, s := range secs {
		if s.id != 5 {
			continue
		}
		// count 1, limits flag 0 (no maximum), minimum.
		if len(s.payload) < 3 || s.payload[0] != 1 || s.payload[1] != 0 {
			return nil, fmt.Errorf("jsexec: unexpected wasm memory section % x", s.payload)
		}
		min, _, err := uleb(s.payload[2:])
		if err != nil {
			return nil, err
		}
		if uint64(maxPages) < min {
			maxPages = uint32(min)
		}
		secs[i].payload = appendULEB(appendULEB([]byte{1, 1}, min), uint64(maxPages))
		found = true
	}
	if !found {
		return nil, errors.New("jsexec: wasm module declares no memory")
	}
	return joinSections(wasm, secs), nil
}

// wasmSection is one section of a wasm module.
type wasmSection struct {
	id      byte
	payload []byte
	at      int // where the payload starts in the module split
}

// splitSections returns wasm's sections, their payloads sharing its bytes.
func splitSections(wasm []byte) ([]wasmSection, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, errors.New("jsexec: not a wasm module")
	}
	var secs []wasmSection
	for p := 8; p < len(wasm); {
		size, n, err := uleb(wasm[p+1:])
		if err != nil {
			return nil, err
		}
		start, end := p+1+n, p+1+n+int(size)
		if end > len(wasm) {
			return nil, errors.New("jsexec: truncated wasm section")
		}
		secs = append(secs, wasmSection{wasm[p], wasm[start:end], start})
		p = end
	}
	return secs, nil
}

// joinSections builds a module of wasm's header and secs.
func joinSections(wasm []byte, secs []wasmSection) []byte {
	out := append([]byte(nil), wasm[:8]...)
	for _, s := range secs {
		out = append(out, s.id)
		out = appendULEB(out, uint64(len(s.payload)))
		out = append(out, s.payload...)
	}
	return out
}

// qjsWasmGz is github.com/fastschema/qjs v0.0.6's qjs.wasm (MIT, see
// LICENSE.qjs), gzipped; qjs does not export its embedded copy, and the
// memory cap needs the bytes. Replace it together with the qjs version in
// go.mod (sha256 of the uncompressed file: qjsWasmSHA256).
//
//go:embed qjs-v0.0.6.wasm.gz
var qjsWasmGz []byte

const qjsWasmSHA256 = "88fcbeead33cca3ec8394feb0fb3eec8047ec9ac5062aba7a63799cee11989b7"

var (
	cappedMu    sync.Mutex
	cappedWasm  = map[uint32][]byte{}
	trackerSlot uint32 // the rejection tracker's table slot, the same in every variant
)

// rejectionTrackerSlot returns the function table slot of the rejection
// tracker (rejections.go) in the wasm that wasmWithCap returned.
func rejectionTrackerSlot() uint32 {
	cappedMu.Lock()
	defer cappedMu.Unlock()
	return trackerSlot
}

// wasmWithCap returns QuickJS's wasm limited to maxPages of memory,
// building each variant once.
func wasmWithCap(maxPages uint32) ([]byte, error) {
	cappedMu.Lock()
	defer cappedMu.Unlock()
	if b, ok := cappedWasm[maxPages]; ok {
		return b, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(qjsWasmGz))
	if err != nil {
		return nil, fmt.Errorf("jsexec: embedded wasm: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("jsexec: embedded wasm: %w", err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != qjsWasmSHA256 {
		return nil, errors.New("jsexec: embedded wasm does not match qjs v0.0.6")
	}
	b, err := capMemory(raw, maxPages)
	if err != nil {
		return nil, err
	}
	if err := removeStdModules(b); err != nil {
		return nil, err
	}
	if b, trackerSlot, err = addRejectionTracker(b); err != nil {
		return nil, err
	}
	cappedWasm[maxPages] = b
	return b, nil
}

// wasmPages is the wasm memory cap for a memory limit: one page more than
// the limit, so that the run's allocator (engineMemory), not wazero, is
// the one to refuse a growth past the limit, and knows it happened.
//
// The memory limit bounds the engine's whole memory, because QuickJS's own
// limit is no bound on a script's total: built for WASI, its allocator
// cannot tell the size of a block (malloc_usable_size is 0 there), so the
// runtime counts a few bytes per allocation and refuses only a single
// allocation larger than the limit. The wasm memory holds everything the
// engine has (heap, strings, ArrayBuffer contents, its stack).
func wasmPages(memLimit int) uint32 {
	return uint32((int64(memLimit)+0xffff)>>16) + 1
}

// removeStdModules patches QuickJS's wasm in place so that the modules
// qjs:std, qjs:os and qjs:bjson never exist: their file, timer and
// environment calls would reach the engine's WASI root, bypassing the
// runner's FS (and its quotas), and no module name can be hidden from
// import() because QuickJS resolves every specifier verbatim. Two same-size
// edits, so no offset moves:
//   - each module's init function starts with
//     `i32.const NAME; i32.const NAME; call; call` (creating the C module);
//     the two calls become `drop; drop; drop; i32.const 0; nop`, the path
//     the function takes when creation fails (it returns NULL, which the
//     context set-up ignores);
//   - the set-up script that imports the three modules into globals
//     (std, os, bjson, setTimeout …) becomes blanks; the prelude supplies
//     the timers instead.
func removeStdModules(wasm []byte) error {
	code, data, err := sectionsOf(wasm)
	if err != nil {
		return err
	}
	for _, name := range []string{"qjs:std", "qjs:os", "qjs:bjson"} {
		addr, _, err := data.find("\x00" + name + "\x00")
		if err != nil {
			return err
		}
		addr++
		c := append([]byte{0x41}, appendSLEB(nil, int64(addr))...)
		pattern := append(append([]byte(nil), c...), c...)
		at := bytes.Index(code, pattern)
		if at < 0 || bytes.Contains(code[at+1:], pattern) {
			return fmt.Errorf("jsexec: wasm: no single creation of module %s", name)
		}
		calls := at + len(pattern)
		end := calls
		for range 2 {
			if end >= len(code) || code[end] != 0x10 {
				return fmt.Errorf("jsexec: wasm: module %s is not created by two calls", name)
			}
			_, n, err := uleb(code[end+1:])
			if err != nil {
				return err
			}
			end += 1 + n
		}
		repl := []byte{0x1a, 0x1a, 0x1a, 0x41, 0x00} // drop ×3, i32.const 0
		if end-calls < len(repl) {
			return fmt.Errorf("jsexec: wasm: no room to remove module %s", name)
		}
		copy(code[calls:], repl)
		for i := calls + len(repl); i < end; i++ {
			code[i] = 0x01 // nop
		}
	}
	const script = "\x00import * as bjson from 'qjs:bjson';\n"
	_, at, err := data.find(script)
	if err != nil {
		return err
	}
	at++
	end := bytes.IndexByte(wasm[at:], 0)
	if end < 0 {
		return errors.New("jsexec: wasm: unterminated set-up script")
	}
	for i := at; i < at+end; i++ {
		wasm[i] = ' '
	}
	return nil
}

// wasmData is the active data segments of a wasm module: where each lands
// in memory and where its bytes are in the module.
type wasmData struct {
	wasm []byte
	segs []struct{ addr, at, size int }
}

// find returns the memory address and module offset of the one occurrence
// of s in the data segments.
func (d wasmData) find(s string) (addr, at int, err error) {
	found := 0
	for _, seg := range d.segs {
		b := d.wasm[seg.at : seg.at+seg.size]
		for i := 0; ; i++ {
			j := bytes.Index(b[i:], []byte(s))
			if j < 0 {
				break
			}
			i += j
			addr, at = seg.addr+i, seg.at+i
			found++
		}
	}
	if found != 1 {
		return 0, 0, fmt.Errorf("jsexec: wasm: %q found %d times in the data, want once", s, found)
	}
	return addr, at, nil
}

// sectionsOf returns the code section's payload (sharing wasm's bytes) and
// the data segments.
func sectionsOf(wasm []byte) (code []byte, data wasmData, err error) {
	data.wasm = wasm
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, data, err
	}
	for _, s := range secs {
		switch s.id {
		case 10:
			code = s.payload
		case 11:
			start, end := s.at, s.at+len(s.payload)
			count, n, err := uleb(s.payload)
			if err != nil {
				return nil, data, err
			}
			q := start + n
			for range count {
				// Only active segments of memory 0 with an i32.const
				// offset: what clang emits for C.
				if q+2 > end || wasm[q] != 0 || wasm[q+1] != 0x41 {
					return nil, data, errors.New("jsexec: wasm: unexpected data segment form")
				}
				addr, n, err := uleb(wasm[q+2:])
				if err != nil {
					return nil, data, err
				}
				q += 2 + n
				if q >= end || wasm[q] != 0x0b {
					return nil, data, errors.New("jsexec: wasm: unexpected data segment offset")
				}
				size, n, err := uleb(wasm[q+1:])
				if err != nil {
					return nil, data, err
				}
				q += 1 + n
				data.segs = append(data.segs, struct{ addr, at, size int }{int(addr), q, int(size)})
				q += int(size)
			}
		}
	}
	if code == nil || data.segs == nil {
		return nil, data, errors.New("jsexec: wasm: no code or data section")
	}
	return code, data, nil
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
