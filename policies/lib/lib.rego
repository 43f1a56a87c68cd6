# Facts about the input that several rules share. Defines no violations.
#
# Negate only named rules and functions (`not allowed(x)`), never a built-in call on a reference
# (`not x in data.list`, `not is_string(input.a)`): if the reference is undefined, OPA makes the
# whole negated expression undefined, so the violation would silently not fire.
package cloudorch.lib

# The cluster is production when its environment tag (settings.production.tagKey) names a
# production environment.
is_production if {
	input.cluster.tags[data.settings.production.tagKey] in data.settings.production.values
}

environment := "production" if is_production

else := "non-production"

node_limit := data.settings.nodeLimits.production if is_production

else := data.settings.nodeLimits.nonProduction

within_node_limit(n) if n <= node_limit

region_allowed(region) if region in data.allowlists.regions

instance_type_allowed(instance_type) if instance_type in data.allowlists.instanceTypes

# The UTC day of input.now. Support dates and waiver expiries are days ("YYYY-MM-DD"), so string
# order is time order; rules never read the wall clock, so decisions are reproducible.
today := substring(input.now, 0, 10)

# The record is being deleted: deletion was requested or the plan deletes the cluster.
deleting if input.cluster.metadata.deletionRequested == true

deleting if {
	some op in input.plan
	op.kind == "DeleteCluster"
}

# EKS support window of a version on input.now. Boundaries follow lambdas/core/catalog.ts: the end
# dates are the first day of the next phase.
support_phase(version) := "standard" if {
	today < data.allowlists.kubernetesVersions[version].endOfStandardSupport
} else := "extended" if {
	today < data.allowlists.kubernetesVersions[version].endOfExtendedSupport
} else := "end-of-life" if {
	data.allowlists.kubernetesVersions[version]
} else := "unknown"

# "$15364.20". Not sprintf's %.2f: OPA and the wasm SDK format integers under %f differently.
usd(amount) := sprintf("$%d.%02d", [floor(cents / 100), cents % 100]) if {
	cents := round(amount * 100)
}

# The JSON type of the value at path under root ("null" when absent), for shape checks.
type_at(root, path) := type_name(object.get(root, path, null))

# The spec's pools (input.cluster.nodeGroups), and their names.
pools := input.cluster.nodeGroups

pool_names := {p.name | some p in pools}

# The most nodes a pool may run: its maxSize when set (an autoscaler may grow it there), else its
# nodeCount.
pool_ceiling(p) := max([p.nodeCount, object.get(p, "maxSize", 0)])

# Node group ownership, as lambdas/core/ownership.ts: CloudOrch created a group when it carries both
# ownership tags; the others are foreign.
managed_by_tag := "cloudorch.io/managed-by"

owner_tag := "cloudorch.io/owner"

pool_tag := "cloudorch.io/pool"

created_by_cloudorch(ng) if {
	ng.tags[managed_by_tag] == "cloudorch"
	is_string(ng.tags[owner_tag])
}

# The pool a CloudOrch-created group serves: its pool tag, else `default` (groups made before pools
# existed carry none). Undefined for foreign groups.
pool_of(ng) := object.get(ng.tags, pool_tag, "default") if created_by_cloudorch(ng)

# The observed node group of that name, when there is one.
observed_nodegroup(name) := ng if {
	some ng in input.observed.nodegroups
	ng.name == name
}

# Node groups of a listed pool that the plan replaces: an existing group of a pool the plan creates
# a new group for, or a group deleted while its pool is still listed (whatever the operation's
# reason says). The pool comes from the group's tags (pool_of). nodegroup_replacement.rego guards
# these, approvals.rego asks for approval of them.
replaced_nodegroups contains ng.name if {
	some op in input.plan
	op.kind == "CreateNodegroup"
	some ng in input.observed.nodegroups
	pool_of(ng) == op.pool
	ng.name != op.nodegroupName
}

replaced_nodegroups contains op.nodegroupName if {
	some op in input.plan
	op.kind == "DeleteNodegroup"
	op.reason == "replaced"
}

replaced_nodegroups contains op.nodegroupName if {
	some op in input.plan
	op.kind == "DeleteNodegroup"
	pool_of(observed_nodegroup(op.nodegroupName)) in pool_names
}

# GPU instance families (g*, p*), as isGpuInstanceType in lambdas/core/plan/nodegroup.ts.
gpu_instance_type(t) if regex.match(`^[gp][0-9]`, t)
