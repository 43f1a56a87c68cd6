package cloudorch_test.kubernetes_version

import data.cloudorch.rules.kubernetes_version
import data.cloudorch_test.fixtures

test_standard_support_version_passes if {
	count(kubernetes_version.violations) == 0 with input as fixtures.compliant
}

test_extended_support_warns_with_price if {
	vs := kubernetes_version.violations with input as fixtures.with_cluster({"kubernetesVersion": "1.32"})
		with input.estimate.controlPlane as 438
	vs == {{
		"rule": "kubernetes-version",
		"severity": "warn",
		"message": "Kubernetes 1.32 is in extended support until 2027-03-23: the control plane is billed at the extended-support rate, $438.00/month",
	}}
}

test_end_of_life_is_an_error if {
	vs := kubernetes_version.violations with input as fixtures.with_cluster({"kubernetesVersion": "1.31"})
	vs == {{
		"rule": "kubernetes-version",
		"severity": "error",
		"message": "Kubernetes 1.31 reached the end of extended support on 2026-11-26; EKS no longer runs it",
	}}
}

test_unknown_version_is_an_error if {
	vs := kubernetes_version.violations with input as fixtures.with_cluster({"kubernetesVersion": "1.99"})
	some v in vs
	v.severity == "error"
}

# Phases follow input.now, not the wall clock: the day standard support ends is already extended.
test_phase_boundary_follows_input_now if {
	count(kubernetes_version.violations) == 0 with input as fixtures.compliant with input.now as "2026-12-01T23:59:59Z"
	vs := kubernetes_version.violations with input as fixtures.compliant with input.now as "2026-12-02T00:00:00Z"
	{v.severity | some v in vs} == {"warn"}
}
