# Cluster size: at most settings.clusterLimits.maxPools pools, and at most
# settings.clusterLimits.totalNodes (production or nonProduction) nodes across all pools, counted
# twice: the pools' nodeCount now, and what they may grow to (each pool's maxSize where set, since
# an autoscaler may take it there).
package cloudorch.rules.cluster_size

import data.cloudorch.lib

limits := data.settings.clusterLimits

total_limit := limits.totalNodes.production if lib.is_production

else := limits.totalNodes.nonProduction

within_total(n) if n <= total_limit

within_pools(n) if n <= limits.maxPools

total := sum([p.nodeCount | some p in lib.pools])

ceiling := sum([lib.pool_ceiling(p) | some p in lib.pools])

violations contains error(sprintf("%v pools exceed the limit of %v pools per cluster", [n, limits.maxPools])) if {
	n := count(lib.pools)
	not within_pools(n)
}

violations contains error(sprintf("the pools run %v nodes in total, above the limit of %v for %v clusters", [total, total_limit, lib.environment])) if {
	not within_total(total)
}

# Said only when the nodes running now are within the limit: one message per cluster is enough.
violations contains error(sprintf("the pools may grow to %v nodes in total (maxSize where set, else nodeCount), above the limit of %v for %v clusters", [ceiling, total_limit, lib.environment])) if {
	within_total(total)
	not within_total(ceiling)
}

error(message) := {"rule": "cluster-size-limit", "severity": "error", "message": message}
