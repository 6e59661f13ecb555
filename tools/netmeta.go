package tools

import "net/netip"

// metadataAddrs are the instance-metadata endpoints of cloud providers:
// they hand out the machine's credentials to whatever asks, which makes
// them the classic goal of a request forged from inside.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OpenStack…
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task metadata
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IPv6
}

// MetadataAddr reports whether a is a cloud's instance-metadata endpoint.
func MetadataAddr(a netip.Addr) bool { return metadataAddrs[a.Unmap().WithZone("")] }
