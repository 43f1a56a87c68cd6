# The input has the shape every rule reads. A rule whose field is missing matches nothing, so
# without this check a malformed input (say, no cost estimate) would pass; here it is a deny.
package cloudorch.rules.input

import data.cloudorch.lib

violations contains {
	"rule": "input-valid",
	"severity": "error",
	"message": sprintf("policy input is malformed: %v", [problem]),
} if {
	some problem in problems
}

# Absent or not an object: every check below then reports its field.
doc := input if {
	is_object(input)
} else := {}

# Dotted path -> the JSON types allowed there.
fields := {
	"cluster.region": {"string"},
	"cluster.clusterName": {"string"},
	"cluster.kubernetesVersion": {"string"},
	"cluster.deletionPolicy": {"string"},
	"cluster.nodeGroups": {"array"},
	"cluster.tags": {"object"},
	"cluster.metadata.id": {"string"},
	"cluster.metadata.name": {"string"},
	"cluster.metadata.namespace": {"string"},
	"cluster.metadata.deletionRequested": {"boolean"},
	"cluster.addons": {"array", "null"},
	"cluster.access": {"object", "null"},
	"observed.cluster": {"object", "null"},
	"observed.nodegroups": {"array"},
	"observed.accessEntries": {"array", "null"},
	"observed.insights": {"array", "null"},
	"plan": {"array"},
	"estimate.monthlyCost": {"number"},
	"estimate.controlPlane": {"number"},
	"now": {"string"},
}

observed_cluster_fields := {"version": {"string"}, "region": {"string"}}

# Each pool of input.cluster.nodeGroups (the spec as validation normalises it; the flat fields are
# gone). Absent optional sizes read as null.
pool_fields := {
	"name": {"string"},
	"instanceTypes": {"array"},
	"capacityType": {"string"},
	"nodeCount": {"number"},
	"minSize": {"number", "null"},
	"maxSize": {"number", "null"},
	"scaling": {"string"},
	"labels": {"object"},
	"taints": {"array"},
}

nodegroup_fields := {
	"name": {"string"},
	"instanceTypes": {"array"},
	"scaling.desiredSize": {"number"},
	"scaling.maxSize": {"number"},
	"tags": {"object"},
}

# The optional parts of the spec and the observation, per element (absent lists are not read).
addon_fields := {"name": {"string"}}

access_entry_fields := {"principalArn": {"string"}, "policies": {"array"}}

insight_fields := {
	"id": {"string"},
	"name": {"string"},
	"status": {"string"},
	"kubernetesVersion": {"string", "null"},
}

# Each list under doc at path, with the fields of its elements.
element_fields := {
	"cluster.addons": addon_fields,
	"cluster.access.entries": access_entry_fields,
	"observed.accessEntries": access_entry_fields,
	"observed.insights": insight_fields,
}

# The operation fields the plan guards read, by kind.
op_fields := {
	"CreateNodegroup": {"nodegroupName": {"string"}, "pool": {"string"}},
	"DeleteNodegroup": {"nodegroupName": {"string"}, "reason": {"string"}},
	"DeleteAddon": {"addonName": {"string"}},
	"AssociateAccessPolicy": {"principalArn": {"string"}, "policyArn": {"string"}},
	"UpdateClusterVersion": {"toVersion": {"string"}},
}

has_type(root, path, types) if lib.type_at(root, split(path, ".")) in types

problems contains sprintf("input.%v must be %v", [path, concat(" or ", sort(types))]) if {
	some path, types in fields
	not has_type(doc, path, types)
}

problems contains sprintf("input.observed.cluster.%v must be %v", [path, concat(" or ", sort(types))]) if {
	is_object(doc.observed.cluster)
	some path, types in observed_cluster_fields
	not has_type(doc.observed.cluster, path, types)
}

problems contains sprintf("input.observed.nodegroups[%v].%v must be %v", [i, path, concat(" or ", sort(types))]) if {
	some i, ng in doc.observed.nodegroups
	some path, types in nodegroup_fields
	not has_type(ng, path, types)
}

problems contains sprintf("input.cluster.nodeGroups[%v].%v must be %v", [i, path, concat(" or ", sort(types))]) if {
	is_array(doc.cluster.nodeGroups)
	some i, pool in doc.cluster.nodeGroups
	some path, types in pool_fields
	not has_type(pool, path, types)
}

problems contains sprintf("input.%v[%v].%v must be %v", [list, i, path, concat(" or ", sort(types))]) if {
	some list, element in element_fields
	some i, item in object.get(doc, split(list, "."), [])
	some path, types in element
	not has_type(item, path, types)
}

problems contains "input.cluster.access.entries must be array" if {
	is_object(doc.cluster.access)
	not has_type(doc.cluster.access, "entries", {"array"})
}

problems contains sprintf("input.plan[%v].%v must be %v", [i, path, concat(" or ", sort(types))]) if {
	some i, op in doc.plan
	some path, types in op_fields[op.kind]
	not has_type(op, path, types)
}

problems contains sprintf("input.plan[%v].kind must be string", [i]) if {
	some i, op in doc.plan
	not has_type(op, "kind", {"string"})
}

# RFC 3339 in UTC, as Date.toISOString() writes it: rules compare its first ten characters as a day.
problems contains "input.now must be an RFC 3339 UTC timestamp (YYYY-MM-DDTHH:MM:SSZ)" if {
	not utc_timestamp
}

utc_timestamp if regex.match(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$`, input.now)
