package cloudorch_test.core_addons

import data.cloudorch.rules.core_addons
import data.cloudorch_test.fixtures

addon(name) := {"name": name, "version": "default", "resolveConflicts": "OVERWRITE"}

with_addons(base, names) := object.union(base, {"cluster": {"addons": [addon(n) | some n in names]}})

core := ["vpc-cni", "coredns", "kube-proxy"]

deleting_addon(base, name) := fixtures.planning(base, [fixtures.op("DeleteAddon", {"addonName": name, "preserve": true})])

test_non_production_needs_no_addons if {
	count(core_addons.violations) == 0 with input as fixtures.compliant
	count(core_addons.violations) == 0 with input as deleting_addon(fixtures.compliant, "coredns")
}

test_production_with_the_core_addons_passes if {
	count(core_addons.violations) == 0 with input as with_addons(fixtures.production, array.concat(core, ["aws-ebs-csi-driver"]))
}

test_production_without_addons_is_denied if {
	vs := core_addons.violations with input as fixtures.production
	vs == {{
		"rule": "core-addons",
		"severity": "error",
		"message": "production clusters must manage the core add-ons vpc-cni, coredns, kube-proxy, but addons does not list vpc-cni, coredns, kube-proxy; add them (e.g. {name: vpc-cni, version: default})",
	}}
}

test_the_message_names_only_the_missing_ones if {
	vs := core_addons.violations with input as with_addons(fixtures.production, ["vpc-cni", "eks-pod-identity-agent"])
	{v.message | some v in vs} == {"production clusters must manage the core add-ons vpc-cni, coredns, kube-proxy, but addons does not list coredns, kube-proxy; add them (e.g. {name: coredns, version: default})"}
}

test_deleting_a_core_addon_of_production_is_denied if {
	vs := core_addons.violations with input as deleting_addon(with_addons(fixtures.production, core), "kube-proxy")
	vs == {{
		"rule": "core-addons",
		"severity": "error",
		"message": "the plan deletes add-on kube-proxy, a core add-on that production clusters must keep managed; list it in addons again",
	}}
}

test_deleting_another_addon_passes if {
	count(core_addons.violations) == 0 with input as deleting_addon(with_addons(fixtures.production, core), "aws-ebs-csi-driver")
}

# A cluster being deleted takes its add-ons with it.
test_cluster_deletion_is_exempt if {
	base := object.union(fixtures.production, {"cluster": {"metadata": {"deletionRequested": true}}})
	count(core_addons.violations) == 0 with input as deleting_addon(base, "coredns")
}

test_settings_can_turn_it_off if {
	count(core_addons.violations) == 0 with input as deleting_addon(fixtures.production, "coredns")
		with data.settings.coreAddons.required as false
}

test_settings_choose_the_addons if {
	input_ := with_addons(fixtures.production, ["vpc-cni"])
	count(core_addons.violations) == 0 with input as input_ with data.settings.coreAddons.names as ["vpc-cni"]
	vs := core_addons.violations with input as input_ with data.settings.coreAddons.names as ["vpc-cni", "eks-pod-identity-agent"]
	{v.message | some v in vs} == {"production clusters must manage the core add-ons vpc-cni, eks-pod-identity-agent, but addons does not list eks-pod-identity-agent; add them (e.g. {name: eks-pod-identity-agent, version: default})"}
}
