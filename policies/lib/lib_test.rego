package cloudorch_test.lib

import data.cloudorch.lib
import data.cloudorch_test.fixtures

test_production_comes_from_the_environment_tag if {
	lib.is_production with input as fixtures.production
	not lib.is_production with input as fixtures.compliant
	lib.environment == "non-production" with input as fixtures.compliant
}

test_support_phases if {
	lib.support_phase("1.34") == "standard" with input as fixtures.compliant
	lib.support_phase("1.32") == "extended" with input as fixtures.compliant
	lib.support_phase("1.31") == "end-of-life" with input as fixtures.compliant
	lib.support_phase("0.1") == "unknown" with input as fixtures.compliant
}

test_deleting if {
	lib.deleting with input as fixtures.planning(fixtures.compliant, [fixtures.op("DeleteCluster", {})])
	lib.deleting with input as fixtures.with_cluster({"metadata": {"deletionRequested": true}})
	not lib.deleting with input as fixtures.compliant
}
