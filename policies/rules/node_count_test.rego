package cloudorch_test.node_count

import data.cloudorch.rules.node_count
import data.cloudorch_test.fixtures

test_small_cluster_passes if {
	count(node_count.violations) == 0 with input as fixtures.compliant
}

test_non_production_limit_is_stricter if {
	vs := node_count.violations with input as fixtures.with_cluster({"nodeCount": 40})
	vs == {{
		"rule": "node-count-limit",
		"severity": "error",
		"message": "nodeCount 40 exceeds the limit of 20 nodes for non-production clusters",
	}}
}

test_production_allows_more if {
	count(node_count.violations) == 0 with input as object.union(fixtures.production, {"cluster": {"nodeCount": 40}})
}

test_production_limit_applies if {
	vs := node_count.violations with input as object.union(fixtures.production, {"cluster": {"nodeCount": 201}})
	some v in vs
	v.message == "nodeCount 201 exceeds the limit of 200 nodes for production clusters"
}

# An autoscaler may grow the group to maxSize, so maxSize is held to the limit too.
test_max_size_is_checked if {
	vs := node_count.violations with input as fixtures.with_cluster({"nodeCount": 3, "maxSize": 30})
	some v in vs
	startswith(v.message, "maxSize 30 exceeds")
}
