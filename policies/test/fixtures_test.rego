# Inputs shared by the rule tests: a compliant development cluster and helpers that change one thing.
package cloudorch_test.fixtures

now := "2026-11-29T12:00:00.000Z"

cluster := {
	"provider": "aws",
	"region": "us-east-1",
	"clusterName": "payments-dev",
	"kubernetesVersion": "1.34",
	"nodeGroups": [pool("default", ["t3.medium"], 2)],
	"tags": {"team": "payments", "environment": "dev"},
	"deletionPolicy": "Delete",
	"adopt": false,
	"paused": false,
	"metadata": {
		"id": "team-payments/dev-small",
		"name": "dev-small",
		"namespace": "team-payments",
		"generation": 1,
		"deletionRequested": false,
	},
}

compliant := {
	"cluster": cluster,
	"observed": {"cluster": null, "nodegroups": [], "observedAt": now},
	"plan": [],
	"estimate": {
		"currency": "USD",
		"monthlyCost": 133.74,
		"controlPlane": 73,
		"nodes": 60.74,
		"supportPhase": "standard",
		"assumptions": [],
	},
	"now": now,
}

# A pool as validation normalises it: defaults applied, optional sizes absent.
pool(name, instance_types, node_count) := {
	"name": name,
	"instanceTypes": instance_types,
	"capacityType": "ON_DEMAND",
	"nodeCount": node_count,
	"scaling": "managed",
	"labels": {},
	"taints": [],
}

# The compliant input with these pools.
with_pools(pools) := json.patch(compliant, [{"op": "replace", "path": "/cluster/nodeGroups", "value": pools}])

# The compliant input with fields of input.cluster replaced (objects such as tags are merged).
with_cluster(patch) := object.union(compliant, {"cluster": patch})

with_tags(tags) := json.patch(compliant, [{"op": "replace", "path": "/cluster/tags", "value": tags}])

production := with_tags({"team": "platform", "environment": "production"})

observed_cluster := {
	"name": "payments-dev",
	"arn": "arn:aws:eks:us-east-1:123456789012:cluster/payments-dev",
	"region": "us-east-1",
	"version": "1.34",
	"status": "ACTIVE",
	"health": "Healthy",
	"roleArn": "arn:aws:iam::123456789012:role/eks",
	"subnetIds": [],
	"securityGroupIds": [],
	"tags": {},
}

nodegroup(name, instance_type, size) := {
	"name": name,
	"arn": sprintf("arn:aws:eks:us-east-1:123456789012:nodegroup/payments-dev/%v/1", [name]),
	"version": "1.34",
	"status": "ACTIVE",
	"health": "Healthy",
	"instanceTypes": [instance_type],
	"capacityType": "ON_DEMAND",
	"scaling": {"minSize": size, "maxSize": size, "desiredSize": size},
	"nodeRole": "arn:aws:iam::123456789012:role/node",
	"subnets": [],
	"tags": {},
	"labels": {},
	"taints": [],
}

# The ownership tags CloudOrch puts on the groups it creates (with the pool tag when it names one).
owned_tags := {"cloudorch.io/managed-by": "cloudorch", "cloudorch.io/owner": "team-payments/dev-small"}

owned(ng, pool_name) := object.union(ng, {"tags": object.union(owned_tags, {"cloudorch.io/pool": pool_name})})

observing(base, nodegroups) := object.union(base, {"observed": {"cluster": observed_cluster, "nodegroups": nodegroups}})

planning(base, ops) := json.patch(base, [{"op": "replace", "path": "/plan", "value": ops}])

op(kind, extra) := object.union({"kind": kind, "clusterName": "payments-dev", "region": "us-east-1"}, extra)

# The rule names of a violation set, for compact assertions.
rules(vs) := {v.rule | some v in vs}
