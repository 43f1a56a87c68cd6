package cloudorch_test.node_count

import data.cloudorch.rules.node_count
import data.cloudorch_test.fixtures

test_small_cluster_passes if {
	count(node_count.violations) == 0 with input as fixtures.compliant
}

test_non_production_limit_is_stricter if {
	vs := node_count.violations with input as fixtures.with_pools([fixtures.pool("workers", ["m5.large"], 40)])
	vs == {{
		"rule": "node-count-limit",
		"severity": "error",
		"message": "pool workers: nodeCount 40 exceeds the limit of 20 nodes for non-production clusters",
	}}
}

test_production_allows_more if {
	base := fixtures.with_pools([fixtures.pool("workers", ["m5.large"], 40)])
	count(node_count.violations) == 0 with input as object.union(base, {"cluster": {"tags": fixtures.production.cluster.tags}})
}

test_production_limit_applies if {
	base := fixtures.with_pools([fixtures.pool("workers", ["m5.large"], 201)])
	vs := node_count.violations with input as object.union(base, {"cluster": {"tags": fixtures.production.cluster.tags}})
	some v in vs
	v.message == "pool workers: nodeCount 201 exceeds the limit of 200 nodes for production clusters"
}

# An autoscaler may grow the group to maxSize, so maxSize is held to the limit too.
test_max_size_is_checked if {
	p := object.union(fixtures.pool("burst", ["m5.large"], 3), {"maxSize": 30, "scaling": "external", "minSize": 0})
	vs := node_count.violations with input as fixtures.with_pools([p])
	{v.message | some v in vs} == {"pool burst: maxSize 30 exceeds the limit of 20 nodes for non-production clusters"}
}

# The limit is per pool: two pools each within it pass here (the total is cluster_size's).
test_each_pool_is_held_to_the_limit if {
	pools := [fixtures.pool("a", ["m5.large"], 15), fixtures.pool("b", ["m5.large"], 21), fixtures.pool("c", ["m5.large"], 15)]
	vs := node_count.violations with input as fixtures.with_pools(pools)
	{v.message | some v in vs} == {"pool b: nodeCount 21 exceeds the limit of 20 nodes for non-production clusters"}
}
