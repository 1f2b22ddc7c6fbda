// Not Pulumi's: what the host of pulumi/pulumi 3.260 (the source in this folder) lacks to build against the
// pinned sdk/v3, whose resource monitor gained ExistsResource; forwarded to the engine as the others are.

package main

import (
	"context"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func (p *monitorProxy) ExistsResource(
	ctx context.Context, req *pulumirpc.ExistsResourceRequest,
) (*pulumirpc.ExistsResourceResponse, error) {
	return p.target.ExistsResource(ctx, req)
}
