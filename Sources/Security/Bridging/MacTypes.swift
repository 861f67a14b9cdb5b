// The MacTypes name that keychain code compares statuses with. On Apple's platforms it comes with every framework;
// here `Security` is its only home.

/// `0`: no error, as `errSecSuccess` (MacTypes.h).
public let noErr: OSStatus = 0
