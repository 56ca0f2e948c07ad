package etcdkv

import "go.uber.org/zap"

// nopLogger silences the etcd client's own logging: wsfs reports what
// fails through its errors.
func nopLogger() *zap.Logger { return zap.NewNop() }
