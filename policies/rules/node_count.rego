# Node count limits per pool: settings.nodeLimits.production for production clusters, the stricter
# nonProduction limit for everything else. maxSize counts too: an autoscaler may grow to it. The
# cluster-wide totals are cluster_size.rego's.
package cloudorch.rules.node_count

import data.cloudorch.lib

violations contains {
	"rule": "node-count-limit",
	"severity": "error",
	"message": sprintf("pool %v: %v %v exceeds the limit of %v nodes for %v clusters", [pool.name, field, n, lib.node_limit, lib.environment]),
} if {
	some pool in lib.pools
	some field in ["nodeCount", "maxSize"]
	n := pool[field]
	not lib.within_node_limit(n)
}
