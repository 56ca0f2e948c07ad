package api

import (
	"context"
	"net/url"

	"github.com/wsfs/wsfs/meta"
)

// CreateKey makes an API key and returns it with its token (shown this
// once), as *meta.DB's CreateKey does.
func (c *Client) CreateKey(ctx context.Context, spec meta.KeySpec) (meta.Key, string, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	q := KeyRequest{Name: spec.Name, Tenant: spec.Tenant, Workspace: spec.Workspace, Scope: string(spec.Scope), Rate: spec.Rate, MaxRuns: spec.MaxRuns}
	if !spec.Expires.IsZero() {
		q.Expires = &spec.Expires
	}
	var k NewKey
	err := c.call(ctx, "POST", "/v1/keys", q, &k)
	return k.Key, k.Secret, err
}

// Keys lists the keys of tenant ("": all those the caller sees).
func (c *Client) Keys(ctx context.Context, tenant string) ([]meta.Key, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	path := "/v1/keys"
	if tenant != "" {
		path += "?tenant=" + url.QueryEscape(tenant)
	}
	var keys []meta.Key
	err := c.call(ctx, "GET", path, nil, &keys)
	return keys, err
}

// RevokeKey revokes a key at once.
func (c *Client) RevokeKey(ctx context.Context, id string) (meta.Key, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	var k meta.Key
	err := c.call(ctx, "DELETE", "/v1/keys/"+url.PathEscape(id), nil, &k)
	return k, err
}
