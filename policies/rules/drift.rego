# Drift: what EKS reports can violate policy even when the spec does not, e.g. an instance type
# changed out of band. Reported as warnings: denying would also block the plan that repairs it.
package cloudorch.rules.drift

import data.cloudorch.lib

cluster := input.observed.cluster

violations contains warn(sprintf("observed node group %v runs instance type %v, which is not allowed", [ng.name, t])) if {
	some ng in input.observed.nodegroups
	some t in ng.instanceTypes
	not lib.instance_type_allowed(t)
}

violations contains warn(sprintf("observed node group %v may scale to %v nodes, above the limit of %v for %v clusters", [ng.name, n, lib.node_limit, lib.environment])) if {
	some ng in input.observed.nodegroups
	n := max([ng.scaling.desiredSize, ng.scaling.maxSize])
	not lib.within_node_limit(n)
}

violations contains warn(sprintf("observed cluster runs Kubernetes %v, which is %v", [cluster.version, phase])) if {
	phase := lib.support_phase(cluster.version)
	phase in {"end-of-life", "unknown"}
}

violations contains warn(sprintf("observed cluster is in region %v, which is not allowed", [region])) if {
	region := cluster.region
	not lib.region_allowed(region)
}

warn(message) := {"rule": "observed-drift", "severity": "warn", "message": message}
