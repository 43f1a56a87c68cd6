package cloudorch_test.cluster_size

import data.cloudorch.rules.cluster_size
import data.cloudorch_test.fixtures

workers(name, n) := fixtures.pool(name, ["m5.large"], n)

prod(pools) := object.union(fixtures.with_pools(pools), {"cluster": {"tags": fixtures.production.cluster.tags}})

test_small_cluster_passes if {
	count(cluster_size.violations) == 0 with input as fixtures.compliant
}

# Each pool is within the per-pool limit of 20; together they are not within 40.
test_total_nodes_across_pools_are_limited if {
	vs := cluster_size.violations with input as fixtures.with_pools([workers("a", 20), workers("b", 20), workers("c", 5)])
	vs == {{
		"rule": "cluster-size-limit",
		"severity": "error",
		"message": "the pools run 45 nodes in total, above the limit of 40 for non-production clusters",
	}}
}

test_total_at_the_limit_passes if {
	count(cluster_size.violations) == 0 with input as fixtures.with_pools([workers("a", 20), workers("b", 20)])
}

test_production_total_is_higher if {
	count(cluster_size.violations) == 0 with input as prod([workers("a", 200), workers("b", 200)])
	vs := cluster_size.violations with input as prod([workers("a", 200), workers("b", 200), workers("c", 101)])
	{v.message | some v in vs} == {"the pools run 501 nodes in total, above the limit of 500 for production clusters"}
}

# An autoscaler may grow a pool to its maxSize: the total it may reach is held to the limit too.
test_max_size_counts_toward_the_total if {
	burst := object.union(workers("burst", 2), {"scaling": "external", "minSize": 0, "maxSize": 20})
	vs := cluster_size.violations with input as fixtures.with_pools([workers("a", 20), burst])
		with data.settings.clusterLimits.totalNodes.nonProduction as 39
	{v.message | some v in vs} == {"the pools may grow to 40 nodes in total (maxSize where set, else nodeCount), above the limit of 39 for non-production clusters"}
}

test_pools_per_cluster_are_limited if {
	pools := [workers(sprintf("p%v", [i]), 1) | some i in numbers.range(1, 11)]
	vs := cluster_size.violations with input as fixtures.with_pools(pools)
	{v.message | some v in vs} == {"11 pools exceed the limit of 10 pools per cluster"}
	count(cluster_size.violations) == 0 with input as fixtures.with_pools(array.slice(pools, 0, 10))
}

test_limits_come_from_settings if {
	vs := cluster_size.violations with input as fixtures.compliant with data.settings.clusterLimits.maxPools as 0
	count(vs) == 1
}
