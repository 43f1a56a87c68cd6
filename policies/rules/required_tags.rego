# Every cluster carries the tags in settings.requiredTags, each with a non-blank value: cost
# allocation and ownership depend on them.
package cloudorch.rules.required_tags

violations contains {
	"rule": "required-tags",
	"severity": "error",
	"message": sprintf("tag %v is required and must not be blank", [key]),
} if {
	some key in data.settings.requiredTags
	not has_value(key)
}

has_value(key) if trim_space(input.cluster.tags[key]) != ""
