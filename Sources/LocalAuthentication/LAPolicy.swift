/// What an ``LAContext`` evaluates, with Apple's raw values.
///
/// On Linux the device owner is the one who knows the keychain passcode; there is no biometric sensor and no
/// paired watch, so the policies that need one cannot be evaluated (as on a device without them).
public enum LAPolicy: Int, Sendable {
    /// Biometry only: never available here (``LAError/Code/biometryNotAvailable``).
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometry, a watch or the passcode: the keychain passcode here.
    case deviceOwnerAuthentication = 2
    /// A paired watch only: never available here (``LAError/Code/watchNotAvailable``).
    case deviceOwnerAuthenticationWithWatch = 3
    /// Biometry or a paired watch: never available here (``LAError/Code/biometryNotAvailable``).
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
}

/// The kinds of credential ``LAContext/setCredential(_:type:)`` takes, with Apple's raw values.
public enum LACredentialType: Int, Sendable {
    /// The application password of items whose access control has `.applicationPassword`.
    case applicationPassword = 0
}

/// The biometric sensor a context would use, with Apple's raw values: always ``none`` on Linux.
public enum LABiometryType: Int, Sendable {
    /// No biometric sensor.
    case none = 0
    /// Touch ID.
    case touchID = 1
    /// Face ID.
    case faceID = 2
    /// Optic ID.
    case opticID = 4
}

/// Apple's cap on ``LAContext/touchIDAuthenticationAllowableReuseDuration``: 300 seconds.
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: Double = 300
