package robota

import (
	"encoding/json"
	"fmt"
)

// ToolChoice says whether the model may, must or must not call a tool, or which one: the
// session's "tool_choice" (SessionConfig.ToolChoice) or one turn's (Input.ToolChoice).
// Required and a named tool hold for the turn's first model call only. A named tool the
// session lacks fails with the ROBOTA_E_INVALID_CONFIG status naming it.
type ToolChoice struct {
	mode string // "auto", "none", "required" or "" for a named tool
	name string
}

var (
	// ToolChoiceAuto lets the model decide (the default).
	ToolChoiceAuto = &ToolChoice{mode: "auto"}
	// ToolChoiceNone forbids tool calls.
	ToolChoiceNone = &ToolChoice{mode: "none"}
	// ToolChoiceRequired makes the model call at least one tool.
	ToolChoiceRequired = &ToolChoice{mode: "required"}
)

// ToolChoiceTool makes the model call the tool named name.
func ToolChoiceTool(name string) *ToolChoice { return &ToolChoice{name: name} }

// MarshalJSON gives "auto" | "none" | "required" | {"name":"TOOL"}.
func (c ToolChoice) MarshalJSON() ([]byte, error) {
	if c.mode != "" {
		return json.Marshal(c.mode)
	}
	return json.Marshal(map[string]string{"name": c.name})
}

// UnmarshalJSON reads the same forms.
func (c *ToolChoice) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "auto", "none", "required":
			*c = ToolChoice{mode: s}
			return nil
		}
		return fmt.Errorf("robota: tool_choice %q is not auto, none or required", s)
	}
	var o struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &o); err != nil || o.Name == "" {
		return fmt.Errorf("robota: tool_choice %s is not {\"name\":\"TOOL\"}", b)
	}
	*c = ToolChoice{name: o.Name}
	return nil
}

// String is the JSON form.
func (c ToolChoice) String() string {
	b, _ := c.MarshalJSON()
	return string(b)
}
