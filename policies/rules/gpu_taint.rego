# GPU pools carry a NoSchedule taint, so only workloads that tolerate it land on the expensive nodes.
# Off unless settings.gpuTaint.required is true. A pool is a GPU pool when any of its instance types
# is of a GPU family (g*, p*).
package cloudorch.rules.gpu_taint

import data.cloudorch.lib

violations contains {
	"rule": "gpu-taint",
	"severity": "error",
	"message": sprintf("pool %v runs GPU instance type %v but has no taint with effect NO_SCHEDULE; add one (e.g. {key: nvidia.com/gpu, effect: NO_SCHEDULE}) so only GPU workloads are scheduled there", [pool.name, gpu_type(pool)]),
} if {
	data.settings.gpuTaint.required == true
	some pool in lib.pools
	gpu_pool(pool)
	not no_schedule(pool)
}

gpu_pool(pool) if {
	some t in pool.instanceTypes
	lib.gpu_instance_type(t)
}

# The first GPU type, for the message.
gpu_type(pool) := [t | some t in pool.instanceTypes; lib.gpu_instance_type(t)][0]

no_schedule(pool) if {
	some taint in pool.taints
	taint.effect == "NO_SCHEDULE"
}
