package storeurl_test

import (
	"fmt"

	"github.com/wsfs/wsfs/objects/storeurl"
)

func ExampleParse() {
	spec, err := storeurl.Parse("s3://wsfs/prod?endpoint=https://0123456789abcdef.r2.cloudflarestorage.com&region=auto&cache=1GiB")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.Kind, spec.S3.Bucket, spec.S3.Prefix, spec.S3.Region, spec.CacheSize>>20, "MiB cache")

	_, err = storeurl.Parse("s3://wsfs/prod?endpiont=minio:9000")
	fmt.Println(err)
	// Output:
	// s3 wsfs prod auto 1024 MiB cache
	// storeurl: store "s3://wsfs/prod?endpiont=minio:9000": unknown parameter "endpiont" (known: endpoint, region, secure, path_style, cache, conditional) (want file:///path or s3://bucket/prefix?endpoint=host:port)
}
