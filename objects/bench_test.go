package objects_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"testing"

	"github.com/wsfs/wsfs/objects"
	"github.com/wsfs/wsfs/objects/objectstest"
)

var benchSizes = []int{4 << 10, 256 << 10}

func benchStores(b *testing.B) map[string]func(b *testing.B) objects.Store {
	return map[string]func(b *testing.B) objects.Store{
		"Memory": func(*testing.B) objects.Store { return objects.NewMemory() },
		"Dir":    func(b *testing.B) objects.Store { return openDir(b, b.TempDir()) },
		"CacheOverMemory": func(b *testing.B) objects.Store {
			c, err := objects.NewCache(objects.NewMemory(), b.TempDir(), 64<<20)
			if err != nil {
				b.Fatal(err)
			}
			return c
		},
	}
}

// BenchmarkPut puts new blobs (each iteration a new digest, so nothing is
// skipped as already stored); the time includes hashing and, for Dir, the
// fsyncs that make each Put durable.
func BenchmarkPut(b *testing.B) {
	for _, name := range []string{"Memory", "Dir", "CacheOverMemory"} {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("%s/%dKiB", name, size>>10), func(b *testing.B) {
				s := benchStores(b)[name](b)
				data := objectstest.Content(1, size)
				b.SetBytes(int64(size))
				var prev objects.Digest
				i := uint64(0)
				for b.Loop() {
					i++
					binary.LittleEndian.PutUint64(data, i)
					d, err := objects.PutBytes(b.Context(), s, data)
					if err != nil {
						b.Fatal(err)
					}
					if name == "Memory" && i > 1 {
						// Keep memory flat over millions of iterations.
						s.Delete(b.Context(), prev)
					}
					prev = d
				}
			})
		}
	}
}

// BenchmarkOpen reads a stored blob whole, verified.
func BenchmarkOpen(b *testing.B) {
	for _, name := range []string{"Memory", "Dir", "CacheOverMemory"} {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("%s/%dKiB", name, size>>10), func(b *testing.B) {
				s := benchStores(b)[name](b)
				d, err := objects.PutBytes(b.Context(), s, objectstest.Content(2, size))
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				for b.Loop() {
					rc, err := s.Open(b.Context(), d, 0, -1)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, rc); err != nil {
						b.Fatal(err)
					}
					rc.Close()
				}
			})
		}
	}
}

// BenchmarkOpenRange reads 4 KiB from the middle of a 256 KiB blob, as a
// FUSE read does.
func BenchmarkOpenRange(b *testing.B) {
	for _, name := range []string{"Memory", "Dir", "CacheOverMemory"} {
		b.Run(name, func(b *testing.B) {
			s := benchStores(b)[name](b)
			d, err := objects.PutBytes(b.Context(), s, objectstest.Content(3, 256<<10))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(4 << 10)
			for b.Loop() {
				rc, err := s.Open(b.Context(), d, 128<<10, 4<<10)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, rc); err != nil {
					b.Fatal(err)
				}
				rc.Close()
			}
		})
	}
}
