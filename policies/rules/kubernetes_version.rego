# Kubernetes versions: unknown and end-of-life versions are denied; a version in EKS extended
# support is allowed with a warning that names the extended-support price of the control plane.
package cloudorch.rules.kubernetes_version

import data.cloudorch.lib

version := input.cluster.kubernetesVersion

support := data.allowlists.kubernetesVersions[version]

violations contains {
	"rule": "kubernetes-version",
	"severity": "error",
	"message": sprintf("Kubernetes %v reached the end of extended support on %v; EKS no longer runs it", [version, support.endOfExtendedSupport]),
} if {
	lib.support_phase(version) == "end-of-life"
}

violations contains {
	"rule": "kubernetes-version",
	"severity": "error",
	"message": sprintf("Kubernetes %v is not a supported EKS version (see allowlists.kubernetesVersions)", [version]),
} if {
	lib.support_phase(version) == "unknown"
}

violations contains {
	"rule": "kubernetes-version",
	"severity": "warn",
	"message": sprintf("Kubernetes %v is in extended support until %v: the control plane is billed at the extended-support rate, %v/month", [version, support.endOfExtendedSupport, lib.usd(input.estimate.controlPlane)]),
} if {
	lib.support_phase(version) == "extended"
}
