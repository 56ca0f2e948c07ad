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

// QuickJS's memory limit does not count ArrayBuffer contents, so a script
// could grow the wasm memory to 4 GiB with typed arrays. capMemory rewrites
// the module's memory section to declare a maximum, which wazero enforces:
// memory.grow fails and QuickJS reports "out of memory".

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
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, errors.New("jsexec: not a wasm module")
	}
	out := append([]byte(nil), wasm[:8]...)
	found := false
	for p := 8; p < len(wasm); {
		id := wasm[p]
		size, n, err := uleb(wasm[p+1:])
		if err != nil {
			return nil, err
		}
		start, end := p+1+n, p+1+n+int(size)
		if end > len(wasm) {
			return nil, errors.New("jsexec: truncated wasm section")
		}
		payload := wasm[start:end]
		if id == 5 {
			// count 1, limits flag 0 (no maximum), minimum.
			if len(payload) < 3 || payload[0] != 1 || payload[1] != 0 {
				return nil, fmt.Errorf("jsexec: unexpected wasm memory section % x", payload)
			}
			min, _, err := uleb(payload[2:])
			if err != nil {
				return nil, err
			}
			if uint64(maxPages) < min {
				maxPages = uint32(min)
			}
			np := []byte{1, 1}
			np = appendULEB(np, min)
			np = appendULEB(np, uint64(maxPages))
			out = append(out, 5)
			out = appendULEB(out, uint64(len(np)))
			out = append(out, np...)
			found = true
		} else {
			out = append(out, wasm[p:end]...)
		}
		p = end
	}
	if !found {
		return nil, errors.New("jsexec: wasm module declares no memory")
	}
	return out, nil
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
	cappedMu   sync.Mutex
	cappedWasm = map[uint32][]byte{}
)

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
	cappedWasm[maxPages] = b
	return b, nil
}

// wasmPages is the wasm memory cap for a QuickJS heap limit: the heap, as
// much again for ArrayBuffer contents, and 16 MiB for the engine itself.
func wasmPages(memLimit int) uint32 {
	return uint32((2*int64(memLimit) + 16<<20 + 0xffff) >> 16)
}
