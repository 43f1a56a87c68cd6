package cloudorch_test.gpu_taint

import data.cloudorch.rules.gpu_taint
import data.cloudorch_test.fixtures

gpu := fixtures.pool("gpu", ["g4dn.xlarge"], 1)

tainted(pool, effect) := object.union(pool, {"taints": [{"key": "nvidia.com/gpu", "effect": effect}]})

untainted_gpu := fixtures.with_pools([fixtures.pool("system", ["t3.medium"], 2), gpu])

test_off_by_default if {
	count(gpu_taint.violations) == 0 with input as untainted_gpu
}

test_untainted_gpu_pool_is_denied_when_required if {
	vs := gpu_taint.violations with input as untainted_gpu with data.settings.gpuTaint.required as true
	vs == {{
		"rule": "gpu-taint",
		"severity": "error",
		"message": "pool gpu runs GPU instance type g4dn.xlarge but has no taint with effect NO_SCHEDULE; add one (e.g. {key: nvidia.com/gpu, effect: NO_SCHEDULE}) so only GPU workloads are scheduled there",
	}}
}

test_no_schedule_taint_passes if {
	input_ := fixtures.with_pools([tainted(gpu, "NO_SCHEDULE")])
	count(gpu_taint.violations) == 0 with input as input_ with data.settings.gpuTaint.required as true
}

# PREFER_NO_SCHEDULE still lets any pod land on the node when nothing else fits.
test_other_effects_do_not_count if {
	input_ := fixtures.with_pools([tainted(gpu, "PREFER_NO_SCHEDULE")])
	count(gpu_taint.violations) == 1 with input as input_ with data.settings.gpuTaint.required as true
}

# One GPU type among several (a spot pool) makes it a GPU pool; p* is a GPU family too.
test_any_gpu_type_makes_a_gpu_pool if {
	mixed := object.union(fixtures.pool("mixed", ["m5.large", "p3.2xlarge"], 1), {"capacityType": "SPOT"})
	vs := gpu_taint.violations with input as fixtures.with_pools([mixed]) with data.settings.gpuTaint.required as true
	{v.message | some v in vs} == {"pool mixed runs GPU instance type p3.2xlarge but has no taint with effect NO_SCHEDULE; add one (e.g. {key: nvidia.com/gpu, effect: NO_SCHEDULE}) so only GPU workloads are scheduled there"}
}

test_non_gpu_pools_need_no_taint if {
	count(gpu_taint.violations) == 0 with input as fixtures.compliant with data.settings.gpuTaint.required as true
}
