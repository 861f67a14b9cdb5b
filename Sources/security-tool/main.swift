// security: the macOS `security` tool's keychain verbs, on swift-keychain. See SecurityTool for what it does.
import Foundation

exit(SecurityTool.run(arguments: Array(CommandLine.arguments.dropFirst())))
