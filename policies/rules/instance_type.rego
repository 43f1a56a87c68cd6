# Node groups use only allowed instance types, read from data.allowlists.instanceTypes
# (policies/allowlists.json, shared with the spec schema).
package cloudorch.rules.instance_type

import data.cloudorch.lib

violations contains {
	"rule": "instance-type-allowed",
	"severity": "error",
	"message": sprintf("instance type %v is not allowed (see allowlists.instanceTypes)", [instance_type]),
} if {
	instance_type := input.cluster.instanceType
	not lib.instance_type_allowed(instance_type)
}
