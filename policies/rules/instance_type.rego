# Every instance type of every pool is allowed, read from data.allowlists.instanceTypes
# (policies/allowlists.json, shared with the spec schema).
package cloudorch.rules.instance_type

import data.cloudorch.lib

violations contains {
	"rule": "instance-type-allowed",
	"severity": "error",
	"message": sprintf("pool %v: instance type %v is not allowed (see allowlists.instanceTypes)", [pool.name, instance_type]),
} if {
	some pool in lib.pools
	some instance_type in pool.instanceTypes
	not lib.instance_type_allowed(instance_type)
}
