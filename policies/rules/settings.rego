# The data files have the shape the rules read. A missing limit or list would make its rule match
# nothing; this turns a broken settings.json or allowlists.json into a deny for every cluster.
package cloudorch.rules.settings

import data.cloudorch.lib

violations contains {
	"rule": "settings-valid",
	"severity": "error",
	"message": sprintf("policy data is invalid: %v", [problem]),
} if {
	some problem in problems
}

# Dotted path under data -> the JSON types allowed there.
fields := {
	"settings.requiredTags": {"array"},
	"settings.production.tagKey": {"string"},
	"settings.production.values": {"array"},
	"settings.nodeLimits.production": {"number"},
	"settings.nodeLimits.nonProduction": {"number"},
	"settings.cost.monthlyThresholdUsd": {"number"},
	"settings.cost.overrideTag": {"string"},
	"settings.cost.allowedOverrides": {"object"},
	"settings.nodegroupReplacement.allowTag": {"string"},
	"settings.clusterLimits.maxPools": {"number"},
	"settings.clusterLimits.totalNodes.production": {"number"},
	"settings.clusterLimits.totalNodes.nonProduction": {"number"},
	"settings.gpuTaint.required": {"boolean"},
	"settings.foreignNodegroups.allowDeletion": {"boolean"},
	"settings.access.clusterAdminPrincipals": {"array"},
	"settings.coreAddons.required": {"boolean"},
	"settings.coreAddons.names": {"array"},
	"settings.upgradeReadiness.enforce": {"boolean"},
	"settings.approvals.productionDeletion": {"boolean"},
	"settings.approvals.productionNodegroupReplacement": {"boolean"},
	"settings.waivers": {"array"},
	"allowlists.regions": {"array"},
	"allowlists.instanceTypes": {"array"},
	"allowlists.kubernetesVersions": {"object"},
}

# Only the two data documents, never `data` itself: that would include this rule (recursion).
settings := data.settings if {
	is_object(data.settings)
} else := {}

allowlists := data.allowlists if {
	is_object(data.allowlists)
} else := {}

has_type(path, types) if {
	lib.type_at({"settings": settings, "allowlists": allowlists}, split(path, ".")) in types
}

problems contains sprintf("data.%v must be %v", [path, concat(" or ", sort(types))]) if {
	some path, types in fields
	not has_type(path, types)
}

problems contains sprintf("data.settings.cost.allowedOverrides[%v] must be a number", [id]) if {
	some id, grant in data.settings.cost.allowedOverrides
	not is_number(grant)
}

# Lists of strings; a number in one would be compared as nothing and silently match nothing.
string_lists := ["requiredTags", "access.clusterAdminPrincipals", "coreAddons.names"]

problems contains sprintf("data.settings.%v must hold strings", [path]) if {
	some path in string_lists
	some item in object.get(settings, split(path, "."), [])
	not is_string(item)
}
