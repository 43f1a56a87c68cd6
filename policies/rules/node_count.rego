# Node count limits: settings.nodeLimits.production for production clusters, the stricter
# nonProduction limit for everything else. maxSize counts too: an autoscaler may grow to it.
package cloudorch.rules.node_count

import data.cloudorch.lib

violations contains {
	"rule": "node-count-limit",
	"severity": "error",
	"message": sprintf("%v %v exceeds the limit of %v nodes for %v clusters", [field, n, lib.node_limit, lib.environment]),
} if {
	some field in ["nodeCount", "maxSize"]
	n := input.cluster[field]
	not lib.within_node_limit(n)
}
