# Cluster-admin (AmazonEKSClusterAdminPolicy, in any scope) only for the principals that
# settings.access.clusterAdminPrincipals allows: ARN glob patterns, where `*` stays within one
# `:`- or `/`-separated part of the ARN and `**` crosses them. Every path to the policy is judged:
# - the spec grants it (input.cluster.access.entries): error;
# - the plan associates it with a principal the spec does not grant it to: error;
# - EKS reports it for a principal the spec does not grant it to (added out of band, or the
#   creator's bootstrap entry of an adopted cluster): a warning, as drift is, since denying would
#   also block the plan that removes it.
package cloudorch.rules.cluster_admin

policy_name := "AmazonEKSClusterAdminPolicy"

policy_arn := concat("", ["arn:aws:eks::aws:cluster-access-policy/", policy_name])

allow_list := "settings.access.clusterAdminPrincipals"

violations contains {
	"rule": "cluster-admin",
	"severity": "error",
	"message": sprintf("access entry %v (access.entries[%v]) is granted %v, but %v allows cluster-admin only for %v; grant a narrower policy (AmazonEKSAdminPolicy, AmazonEKSEditPolicy, AmazonEKSViewPolicy) or have the platform team add the principal to the allow-list", [entry.principalArn, i, policy_name, allow_list, allowed_text]),
} if {
	some i, entry in spec_entries
	grants_admin(entry)
	not allowed(entry.principalArn)
}

violations contains {
	"rule": "cluster-admin",
	"severity": "error",
	"message": sprintf("the plan associates %v with %v, which %v does not allow (allowed: %v)", [policy_name, op.principalArn, allow_list, allowed_text]),
} if {
	some op in input.plan
	op.kind == "AssociateAccessPolicy"
	op.policyArn == policy_arn
	not allowed(op.principalArn)
	not spec_grants_admin(op.principalArn)
}

# With bootstrapClusterCreatorAdminPermissions, EKS makes the creating role cluster-admin, outside
# any access entry the spec lists. CloudOrch never asks for it; a plan that did is denied.
violations contains {
	"rule": "cluster-admin",
	"severity": "error",
	"message": sprintf("the plan creates cluster %v with bootstrapClusterCreatorAdminPermissions, which makes the creating role cluster-admin outside the spec's access entries", [op.clusterName]),
} if {
	some op in input.plan
	op.kind == "CreateCluster"
	op.accessConfig.bootstrapClusterCreatorAdminPermissions == true
}

violations contains {
	"rule": "cluster-admin",
	"severity": "warn",
	"message": sprintf("observed access entry %v holds %v, but the spec does not grant it and %v does not allow it (an out-of-band cluster-admin); remove it, or list it in access.entries with access.exclusive so CloudOrch removes unlisted entries", [entry.principalArn, policy_name, allow_list]),
} if {
	some entry in input.observed.accessEntries
	some p in entry.policies
	p.policyArn == policy_arn
	not allowed(entry.principalArn)
	not spec_grants_admin(entry.principalArn)
}

spec_entries := object.get(input.cluster, ["access", "entries"], [])

grants_admin(entry) if {
	some p in entry.policies
	p.name == policy_name
}

spec_grants_admin(principal) if {
	some entry in spec_entries
	entry.principalArn == principal
	grants_admin(entry)
}

allowed(principal) if {
	some pattern in data.settings.access.clusterAdminPrincipals
	glob.match(pattern, [":", "/"], principal)
}

allowed_text := concat(", ", data.settings.access.clusterAdminPrincipals) if {
	count(data.settings.access.clusterAdminPrincipals) > 0
} else := "no principal"
