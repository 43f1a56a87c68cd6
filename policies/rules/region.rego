# Clusters run only in allowed regions. The list is data.allowlists.regions (policies/allowlists.json),
# the same file the spec schema reads, so the two can never disagree.
package cloudorch.rules.region

import data.cloudorch.lib

violations contains {
	"rule": "region-allowed",
	"severity": "error",
	"message": sprintf("region %v is not allowed (allowed: %v)", [region, concat(", ", data.allowlists.regions)]),
} if {
	region := input.cluster.region
	not lib.region_allowed(region)
}
