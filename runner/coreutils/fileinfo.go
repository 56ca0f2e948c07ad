package coreutils

import (
	"fmt"
	"io/fs"
	"math/big"
	"syscall"
	"time"
)

// The runner shows every file as owned by the agent: the worker's uid and
// gid mean nothing to an agent, and fixed names keep listings stable across
// machines and revisions.
const (
	ownerName = "agent"
	groupName = "agent"
)

// sysStat is the kernel's view of a file, zero for synthetic files.
type sysStat struct {
	ino, nlink, blocks, dev, rdev uint64
	uid, gid                      uint32
	blksize                       int64
	atime, ctime                  time.Time
}

func statOf(fi fs.FileInfo) sysStat {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return sysStat{nlink: 1, blksize: 4096, atime: fi.ModTime(), ctime: fi.ModTime()}
	}
	return sysStat{
		ino: st.Ino, nlink: uint64(st.Nlink), blocks: uint64(st.Blocks), dev: st.Dev, rdev: st.Rdev,
		uid: st.Uid, gid: st.Gid, blksize: int64(st.Blksize),
		atime: time.Unix(st.Atim.Sec, st.Atim.Nsec), ctime: time.Unix(st.Ctim.Sec, st.Ctim.Nsec),
	}
}

// typeChar is the first character of ls -l's mode column.
func typeChar(m fs.FileMode) byte {
	switch {
	case m.IsDir():
		return 'd'
	case m&fs.ModeSymlink != 0:
		return 'l'
	case m&fs.ModeNamedPipe != 0:
		return 'p'
	case m&fs.ModeSocket != 0:
		return 's'
	case m&fs.ModeCharDevice != 0:
		return 'c'
	case m&fs.ModeDevice != 0:
		return 'b'
	}
	return '-'
}

// modeString is ls -l's ten-character mode, "drwxr-xr-x".
func modeString(m fs.FileMode) string {
	return string(typeChar(m)) + permString(unixMode(m))
}

// fileTypeName is stat's %F.
func fileTypeName(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	case m&fs.ModeDevice != 0:
		return "block special file"
	case fi.Size() == 0:
		return "regular empty file"
	}
	return "regular file"
}

// humanSize prints n units of unitSize bytes as GNU's -h does: rounded up,
// one decimal below 10, suffixes K M G T P E; base is 1024 or 1000 (--si).
func humanSize(n, unitSize uint64, base uint64) string {
	total := new(big.Int).Mul(new(big.Int).SetUint64(n), new(big.Int).SetUint64(unitSize))
	b := new(big.Int).SetUint64(base)
	if total.Cmp(b) < 0 {
		return total.String()
	}
	const suffixes = "KMGTPEZY"
	div := new(big.Int).Set(b)
	for e := 0; e < len(suffixes); e++ {
		next := new(big.Int).Mul(div, b)
		if total.Cmp(next) >= 0 && e+1 < len(suffixes) {
			div = next
			continue
		}
		suffix := string(suffixes[e])
		if base == 1000 && e == 0 {
			suffix = "k"
		}
		// tenths = ceil(total*10/div)
		tenths := new(big.Int).Mul(total, big.NewInt(10))
		q, r := new(big.Int).QuoRem(tenths, div, new(big.Int))
		if r.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		if q.Cmp(big.NewInt(100)) < 0 {
			return fmt.Sprintf("%d.%d%s", q.Int64()/10, q.Int64()%10, suffix)
		}
		whole, r2 := new(big.Int).QuoRem(total, div, new(big.Int))
		if r2.Sign() > 0 {
			whole.Add(whole, big.NewInt(1))
		}
		if whole.Cmp(b) >= 0 && e+1 < len(suffixes) {
			s := string(suffixes[e+1])
			return "1.0" + s
		}
		return whole.String() + suffix
	}
	return total.String()
}

// ceilDiv is ⌈a/b⌉.
func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }
