package approval

import (
	"fmt"
	"net"
	"net/netip"

	"myclaw/tools"
)

// NetworkTool is the name under which a confined command's contact with a
// host, through myclaw's proxy, is decided: rules, grants, the level and
// the pane treat it like a call of its own, whose capability names the
// host ("net:connect:proxy.golang.org:443"). A grant covers that one host.
const NetworkTool = "network"

// networkMeta declares a host contact: a side effect with no preview, so
// ask and auto-edit ask for a new host and full allows it.
var networkMeta = tools.Meta{
	Name:        NetworkTool,
	Description: "A sandboxed command reaching a host through myclaw's proxy.",
	Risk:        tools.RiskMedium,
	Capability:  "net:connect",
	Source:      tools.SourceBuiltin,
}

// NetworkRequest is the request for a confined command's first contact
// with hostport, made while call callID (running command) runs.
// A cloud's metadata service is asked about every time, at every level.
func NetworkRequest(callID, command, hostport string) Request {
	req := Request{
		CallID:     callID,
		Tool:       NetworkTool,
		Meta:       networkMeta,
		Capability: "net:connect:" + hostport,
		Summary:    fmt.Sprintf("`%s` wants to reach %s", tools.ClipOneLine(command, 60), hostport),
		Why:        "the command runs sandboxed, and this host has not been allowed for it: allow it for this call, the session (a), or this project (s)",
	}
	host, _, _ := net.SplitHostPort(hostport)
	if a, err := netip.ParseAddr(host); err == nil && tools.MetadataAddr(a) {
		req.Meta.AlwaysAsk, req.Meta.Risk = true, tools.RiskHigh
		req.Why = host + " is a cloud's metadata service, which hands this machine's credentials to whatever asks: myclaw asks before every contact, at every level"
	}
	return req
}
