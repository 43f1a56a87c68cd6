package cloudorch_test.cluster_admin

import data.cloudorch.rules.cluster_admin
import data.cloudorch_test.fixtures

admin_arn := "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"

platform := "arn:aws:iam::123456789012:role/platform-admin"

dev_role := "arn:aws:iam::123456789012:role/payments-dev"

entry(principal, names) := {
	"principalArn": principal,
	"type": "STANDARD",
	"policies": [{"name": n, "scope": "cluster"} | some n in names],
}

granting(entries) := fixtures.with_cluster({"access": {"authenticationMode": "API", "exclusive": false, "entries": entries}})

observed_entry(principal, policy_arns) := {
	"principalArn": principal,
	"arn": sprintf("arn:aws:eks:us-east-1:123456789012:access-entry/payments-dev/role/%v", [principal]),
	"type": "STANDARD",
	"kubernetesGroups": [],
	"tags": {},
	"policies": [{"policyArn": a, "scope": {"type": "cluster", "namespaces": []}} | some a in policy_arns],
}

observing(base, entries) := object.union(base, {"observed": {"accessEntries": entries}})

associating(base, principal) := fixtures.planning(base, [fixtures.op("AssociateAccessPolicy", {
	"principalArn": principal,
	"policyArn": admin_arn,
	"accessScope": {"type": "cluster", "namespaces": []},
})])

test_no_access_section_passes if {
	count(cluster_admin.violations) == 0 with input as fixtures.compliant
}

test_allowed_principal_may_be_cluster_admin if {
	count(cluster_admin.violations) == 0 with input as granting([entry(platform, ["AmazonEKSClusterAdminPolicy"])])
}

test_other_policies_are_not_judged if {
	count(cluster_admin.violations) == 0 with input as granting([entry(dev_role, ["AmazonEKSAdminPolicy", "AmazonEKSViewPolicy"])])
}

test_spec_grant_to_a_principal_not_allowed_is_denied if {
	vs := cluster_admin.violations with input as granting([entry(platform, []), entry(dev_role, ["AmazonEKSViewPolicy", "AmazonEKSClusterAdminPolicy"])])
	vs == {{
		"rule": "cluster-admin",
		"severity": "error",
		"message": "access entry arn:aws:iam::123456789012:role/payments-dev (access.entries[1]) is granted AmazonEKSClusterAdminPolicy, but settings.access.clusterAdminPrincipals allows cluster-admin only for arn:aws:iam::*:role/platform-admin; grant a narrower policy (AmazonEKSAdminPolicy, AmazonEKSEditPolicy, AmazonEKSViewPolicy) or have the platform team add the principal to the allow-list",
	}}
}

# Scoping the policy to namespaces does not make it a lesser grant.
test_namespace_scope_is_still_cluster_admin if {
	scoped := {"principalArn": dev_role, "policies": [{"name": "AmazonEKSClusterAdminPolicy", "scope": "namespace", "namespaces": ["payments"]}]}
	count(cluster_admin.violations) == 1 with input as granting([scoped])
}

# `*` stays within one part of the ARN: a role under a path or in a user's name does not match.
test_patterns_match_whole_arn_parts if {
	lookalikes := [
		entry("arn:aws:iam::123456789012:role/ops/platform-admin", ["AmazonEKSClusterAdminPolicy"]),
		entry("arn:aws:iam::123456789012:role/platform-admin-2", ["AmazonEKSClusterAdminPolicy"]),
		entry("arn:aws:iam::123456789012:user/platform-admin", ["AmazonEKSClusterAdminPolicy"]),
	]
	count(cluster_admin.violations) == 3 with input as granting(lookalikes)
}

test_settings_decide_who_is_allowed if {
	input_ := granting([entry(dev_role, ["AmazonEKSClusterAdminPolicy"]), entry(platform, ["AmazonEKSClusterAdminPolicy"])])
	count(cluster_admin.violations) == 0 with input as input_
		with data.settings.access.clusterAdminPrincipals as ["arn:aws:iam::123456789012:role/*"]
	vs := cluster_admin.violations with input as input_ with data.settings.access.clusterAdminPrincipals as []
	{v.message | some v in vs} == {
		"access entry arn:aws:iam::123456789012:role/payments-dev (access.entries[0]) is granted AmazonEKSClusterAdminPolicy, but settings.access.clusterAdminPrincipals allows cluster-admin only for no principal; grant a narrower policy (AmazonEKSAdminPolicy, AmazonEKSEditPolicy, AmazonEKSViewPolicy) or have the platform team add the principal to the allow-list",
		"access entry arn:aws:iam::123456789012:role/platform-admin (access.entries[1]) is granted AmazonEKSClusterAdminPolicy, but settings.access.clusterAdminPrincipals allows cluster-admin only for no principal; grant a narrower policy (AmazonEKSAdminPolicy, AmazonEKSEditPolicy, AmazonEKSViewPolicy) or have the platform team add the principal to the allow-list",
	}
}

test_planned_association_to_a_principal_not_allowed_is_denied if {
	vs := cluster_admin.violations with input as associating(fixtures.compliant, dev_role)
	vs == {{
		"rule": "cluster-admin",
		"severity": "error",
		"message": "the plan associates AmazonEKSClusterAdminPolicy with arn:aws:iam::123456789012:role/payments-dev, which settings.access.clusterAdminPrincipals does not allow (allowed: arn:aws:iam::*:role/platform-admin)",
	}}
}

test_planned_association_to_an_allowed_principal_passes if {
	count(cluster_admin.violations) == 0 with input as associating(fixtures.compliant, platform)
}

# The spec's grant is already denied: the plan that carries it out adds no second error.
test_one_error_per_denied_spec_grant if {
	base := granting([entry(dev_role, ["AmazonEKSClusterAdminPolicy"])])
	vs := cluster_admin.violations with input as associating(base, dev_role)
	count(vs) == 1
}

test_bootstrap_creator_admin_is_denied if {
	create := fixtures.op("CreateCluster", {"accessConfig": {"authenticationMode": "API", "bootstrapClusterCreatorAdminPermissions": true}})
	vs := cluster_admin.violations with input as fixtures.planning(fixtures.compliant, [create])
	{v.message | some v in vs} == {"the plan creates cluster payments-dev with bootstrapClusterCreatorAdminPermissions, which makes the creating role cluster-admin outside the spec's access entries"}
	without := json.patch(create, [{"op": "replace", "path": "/accessConfig/bootstrapClusterCreatorAdminPermissions", "value": false}])
	count(cluster_admin.violations) == 0 with input as fixtures.planning(fixtures.compliant, [without])
}

test_out_of_band_admin_is_a_warning if {
	input_ := observing(fixtures.compliant, [observed_entry(dev_role, [admin_arn])])
	vs := cluster_admin.violations with input as input_
	vs == {{
		"rule": "cluster-admin",
		"severity": "warn",
		"message": "observed access entry arn:aws:iam::123456789012:role/payments-dev holds AmazonEKSClusterAdminPolicy, but the spec does not grant it and settings.access.clusterAdminPrincipals does not allow it (an out-of-band cluster-admin); remove it, or list it in access.entries with access.exclusive so CloudOrch removes unlisted entries",
	}}
}

# Listed without cluster-admin, holding it in EKS: the policy was added by hand.
test_admin_added_by_hand_to_a_listed_entry_is_a_warning if {
	input_ := observing(granting([entry(dev_role, ["AmazonEKSViewPolicy"])]), [observed_entry(dev_role, [admin_arn])])
	{v.severity | some v in cluster_admin.violations} == {"warn"} with input as input_
}

test_observed_admins_that_are_allowed_or_granted_pass if {
	observed := [observed_entry(platform, [admin_arn]), observed_entry(dev_role, ["arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"])]
	count(cluster_admin.violations) == 0 with input as observing(fixtures.compliant, observed)
}

# A denied spec grant that EKS already holds is one error, not an error and a warning.
test_observed_admin_granted_by_the_spec_is_judged_once if {
	input_ := observing(granting([entry(dev_role, ["AmazonEKSClusterAdminPolicy"])]), [observed_entry(dev_role, [admin_arn])])
	{v.severity | some v in cluster_admin.violations} == {"error"} with input as input_
	count(cluster_admin.violations) == 1 with input as input_
}
