import Foundation
import TestSupport
import Testing

/// Locking through the Secret Service: a keychain with a passcode starts locked, `Unlock` answers with a prompt
/// whose `Prompt` asks the passcode through pinentry (a scripted one of the test's), and a prompt dismissed or
/// canceled unlocks nothing. And `CreateItem` calls whose secret or session is malformed, refused whole.
@Suite(
    "Secret Service: prompts unlock the keychain or report their dismissal; malformed secrets store nothing",
    .enabled(if: PythonClients.secretStorage, "python3-secretstorage is not installed (scripts/bootstrap installs it)"))
struct SecretServicePromptTests {
    static let passcode = "correct horse 42"

    /// A bus whose keychain has a passcode, and whose service asks pinentry (a script answering `pin`, or canceling
    /// when it is nil) for it.
    static func lockedBus(pin: String?, answerAfter delay: Int = 0) throws -> SecretServiceBus {
        let bus = try SecretServiceBus(startingService: false)
        let pinentry = bus.directory.file("pinentry")
        let answer =
            pin.map { "printf 'D %s\\nOK\\n' '\($0)'" } ?? "echo 'ERR 83886179 Operation cancelled <Pinentry>'"
        let script = """
            #!/bin/sh
            echo 'OK Pleased to meet you'
            while IFS= read -r line; do
              case "$line" in
                GETPIN*) sleep \(delay); \(answer) ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done
            """
        try ExecutableCopy.write(Data(script.utf8), to: pinentry.path, mode: 0o700)
        bus.serviceEnvironment = ["PINENTRY_PROGRAM": pinentry.path]
        // The service asks on its controlling terminal before pinentry: run from a terminal, the tests would wait for
        // the developer's answer. So it gives up the terminal (TIOCNOTTY) and execs the service, keeping its pid.
        let detach = bus.directory.file("detach.py")
        try Data(
            """
            import os, sys, fcntl, termios
            try:
                fd = os.open('/dev/tty', os.O_RDWR | os.O_NOCTTY)
                fcntl.ioctl(fd, termios.TIOCNOTTY)
                os.close(fd)
            except OSError:
                pass
            os.execv(sys.argv[1], sys.argv[1:])
            """.utf8
        ).write(to: detach)
        bus.serviceLauncher = [PythonClients.python, detach.path]
        let set = try bus.run(
            SecretServiceClientTests.security, ["set-keychain-password", "-p", passcode])
        #expect(set.status == 0, "\(set.errors)")
        try bus.start()
        return bus
    }

    /// Unlocks the default collection through secretstorage (which runs the prompt and waits for `Completed`), and
    /// prints what it saw.
    static let unlockScript = """
        from contextlib import closing
        import secretstorage
        with closing(secretstorage.dbus_init()) as bus:
            collection = secretstorage.get_default_collection(bus)
            print('locked-before', collection.is_locked())
            try:
                collection.create_item('x', {'k': 'v'}, b'while-locked')
                print('created-while-locked')
            except secretstorage.exceptions.LockedException:
                print('refused-while-locked')
            print('dismissed', collection.unlock())
            print('locked-after', collection.is_locked())
            if not collection.is_locked():
                collection.create_item('x', {'k': 'v'}, b'after-unlock')
                print('secret', collection.search_items({'k': 'v'}).__next__().get_secret().decode())
        """

    @Test("A locked keychain: Unlock's prompt asks pinentry for the passcode and unlocks; Completed(false, objects)")
    func promptUnlocks() throws {
        let bus = try Self.lockedBus(pin: Self.passcode)
        let result = try bus.python(Self.unlockScript)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("locked-before True"), "\(result.output)")
        #expect(result.output.contains("refused-while-locked"), "\(result.output)")
        #expect(result.output.contains("dismissed False"), "\(result.output)")
        #expect(result.output.contains("locked-after False"), "\(result.output)")
        #expect(result.output.contains("secret after-unlock"), "\(result.output)")
    }

    @Test("While a prompt asks (pinentry takes 3 s), the service answers every other caller at once")
    func promptDoesNotBlock() throws {
        let bus = try Self.lockedBus(pin: Self.passcode, answerAfter: 3)
        let result = try bus.python(
            """
            import threading, time
            import secretstorage
            asking = secretstorage.dbus_init()
            other = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(asking)
            outcome = {}
            thread = threading.Thread(target=lambda: outcome.update(dismissed=collection.unlock()))
            thread.start()
            time.sleep(0.8)
            start = time.monotonic()
            list(secretstorage.get_default_collection(other).search_items({'k': 'v'}))
            print('answered-in', round(time.monotonic() - start, 3))
            thread.join()
            print('dismissed', outcome['dismissed'])
            """)
        #expect(result.status == 0, "\(result.errors)")
        let answered = result.output.split(separator: "\n").first { $0.hasPrefix("answered-in") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
        #expect(answered.map { $0 < 1.0 } == true, "another caller waited for the prompt: \(result.output)")
        #expect(result.output.contains("dismissed False"), "\(result.output)")
    }

    @Test("A prompt canceled in pinentry reports dismissed=true and unlocks nothing")
    func canceledPrompt() throws {
        let bus = try Self.lockedBus(pin: nil)
        let result = try bus.python(Self.unlockScript)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("dismissed True"), "\(result.output)")
        #expect(result.output.contains("locked-after True"), "\(result.output)")
        #expect(!result.output.contains("secret "), "\(result.output)")
    }

    @Test("Wrong passcodes: the prompt gives up dismissed, the keychain stays locked")
    func wrongPasscodes() throws {
        let bus = try Self.lockedBus(pin: "not the passcode")
        let result = try bus.python(Self.unlockScript)
        #expect(result.output.contains("dismissed True"), "\(result.output)")
        #expect(result.output.contains("locked-after True"), "\(result.output)")
    }

    @Test("Dismiss: Completed(true, []) on the prompt's path, the prompt is gone, the keychain stays locked")
    func dismissedPrompt() throws {
        let bus = try Self.lockedBus(pin: Self.passcode)
        let result = try bus.python(
            """
            from jeepney import DBusAddress, new_method_call, MatchRule, MessageType
            from jeepney.bus_messages import message_bus
            from jeepney.io.blocking import open_dbus_connection
            conn = open_dbus_connection('SESSION')
            name = 'org.freedesktop.secrets'
            service = DBusAddress('/org/freedesktop/secrets', name, 'org.freedesktop.Secret.Service')
            login = '/org/freedesktop/secrets/collection/login'
            unlocked, prompt = conn.send_and_get_reply(new_method_call(service, 'Unlock', 'ao', ([login],))).body
            print('unlocked', unlocked, 'prompt', prompt)
            rule = MatchRule(path=prompt, interface='org.freedesktop.Secret.Prompt', member='Completed',
                             type=MessageType.signal)
            conn.send_and_get_reply(message_bus.AddMatch(rule))
            address = DBusAddress(prompt, name, 'org.freedesktop.Secret.Prompt')
            with conn.filter(rule) as signals:
                conn.send_and_get_reply(new_method_call(address, 'Dismiss'))
                dismissed, result = conn.recv_until_filtered(signals, timeout=5).body
            print('dismissed', dismissed, 'result', result[1])
            reply = conn.send_and_get_reply(new_method_call(address, 'Prompt', 's', ('',)))
            print('again', reply.header.fields.get(4, 'no error'))
            props = DBusAddress(login, name, 'org.freedesktop.DBus.Properties')
            locked = conn.send_and_get_reply(
                new_method_call(props, 'Get', 'ss', ('org.freedesktop.Secret.Collection', 'Locked'))).body[0][1]
            print('locked-after', locked)
            """)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("unlocked [] prompt /org/freedesktop/secrets/prompt/"), "\(result.output)")
        #expect(result.output.contains("dismissed True result []"), "\(result.output)")
        #expect(result.output.contains("again org.freedesktop.Secret.Error.NoSuchObject"), "\(result.output)")
        #expect(result.output.contains("locked-after True"), "\(result.output)")
    }

    @Test(
        "A prompt is its caller's: another connection can neither run nor dismiss it; a connection that leaves takes its sessions with it, and holds at most 64"
    )
    func promptsAndSessionsBelongToTheirConnection() throws {
        let bus = try Self.lockedBus(pin: Self.passcode)
        let result = try bus.python(
            """
            import time
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            name = 'org.freedesktop.secrets'
            service = DBusAddress('/org/freedesktop/secrets', name, 'org.freedesktop.Secret.Service')
            login = '/org/freedesktop/secrets/collection/login'
            def error(reply):
                return reply.header.fields.get(4, 'no error')
            owner, other = open_dbus_connection('SESSION'), open_dbus_connection('SESSION')
            unlocked, prompt = owner.send_and_get_reply(new_method_call(service, 'Unlock', 'ao', ([login],))).body
            address = DBusAddress(prompt, name, 'org.freedesktop.Secret.Prompt')
            print('other-prompt', error(other.send_and_get_reply(new_method_call(address, 'Prompt', 's', ('',)))))
            print('other-dismiss', error(other.send_and_get_reply(new_method_call(address, 'Dismiss'))))
            print('owner-dismiss', error(owner.send_and_get_reply(new_method_call(address, 'Dismiss'))))
            leaving = open_dbus_connection('SESSION')
            opened = [leaving.send_and_get_reply(new_method_call(service, 'OpenSession', 'sv', ('plain', ('s', ''))))
                      for _ in range(65)]
            print('opened', sum(1 for reply in opened if error(reply) == 'no error'), error(opened[-1]))
            session = DBusAddress(opened[0].body[1], name, 'org.freedesktop.Secret.Session')
            print('before-leaving', error(other.send_and_get_reply(new_method_call(session, 'Close'))))
            leaving.close()
            time.sleep(0.5)
            print('after-leaving', error(other.send_and_get_reply(new_method_call(session, 'Close'))))
            """)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("other-prompt org.freedesktop.Secret.Error.NoSuchObject"), "\(result.output)")
        #expect(result.output.contains("other-dismiss org.freedesktop.Secret.Error.NoSuchObject"), "\(result.output)")
        #expect(result.output.contains("owner-dismiss no error"), "\(result.output)")
        #expect(result.output.contains("opened 64 org.freedesktop.DBus.Error.LimitsExceeded"), "\(result.output)")
        // Another connection's session is no session for this one; once its connection has left, it is nothing.
        #expect(result.output.contains("before-leaving org.freedesktop.Secret.Error.NoSession"), "\(result.output)")
        #expect(result.output.contains("after-leaving org.freedesktop.Secret.Error.NoSuchObject"), "\(result.output)")
    }

    @Test("CreateItem with a malformed secret or session is refused, naming what is wrong, and stores nothing")
    func malformedSecrets() throws {
        let bus = try SecretServiceBus()
        let result = try bus.python(
            """
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            from secretstorage.util import open_session
            conn = open_dbus_connection('SESSION')
            name = 'org.freedesktop.secrets'
            login = '/org/freedesktop/secrets/collection/login'
            collection = DBusAddress(login, name, 'org.freedesktop.Secret.Collection')
            plain = conn.send_and_get_reply(new_method_call(
                DBusAddress('/org/freedesktop/secrets', name, 'org.freedesktop.Secret.Service'), 'OpenSession', 'sv',
                ('plain', ('s', '')))).body[1]
            dh = open_session(conn).object_path
            props = {'org.freedesktop.Secret.Item.Label': ('s', 'forged'),
                     'org.freedesktop.Secret.Item.Attributes': ('a{ss}', {'k': 'v'})}
            cases = [
                ('unknown-session', '(oayays)', ('/org/freedesktop/secrets/session/999', b'', b'pw', 'text/plain')),
                ('plain-with-parameters', '(oayays)', (plain, b'0123456789abcdef', b'pw', 'text/plain')),
                ('short-iv', '(oayays)', (dh, b'0123456789abcde', b'0123456789abcdef', 'text/plain')),
                ('partial-block', '(oayays)', (dh, b'0123456789abcdef', b'0123456789abcdefg', 'text/plain')),
                ('not-a-secret', 's', 'pw'),
            ]
            for label, signature, secret in cases:
                reply = conn.send_and_get_reply(new_method_call(
                    collection, 'CreateItem', 'a{sv}' + signature + 'b', (props, secret, False)))
                print(label, reply.header.fields.get(4, 'accepted'), reply.body)
            items = conn.send_and_get_reply(new_method_call(
                DBusAddress(login, name, 'org.freedesktop.DBus.Properties'), 'Get', 'ss',
                ('org.freedesktop.Secret.Collection', 'Items'))).body[0][1]
            print('items', len(items))
            """)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output
        #expect(lines.contains("unknown-session org.freedesktop.Secret.Error.NoSession"), "\(lines)")
        #expect(lines.contains("/org/freedesktop/secrets/session/999"), "\(lines)")
        #expect(lines.contains("plain-with-parameters org.freedesktop.DBus.Error.InvalidArgs"), "\(lines)")
        #expect(lines.contains("short-iv org.freedesktop.DBus.Error.InvalidArgs"), "\(lines)")
        #expect(lines.contains("16-byte IV"), "\(lines)")
        #expect(lines.contains("partial-block org.freedesktop.DBus.Error.InvalidArgs"), "\(lines)")
        #expect(lines.contains("not whole AES blocks"), "\(lines)")
        #expect(lines.contains("not-a-secret org.freedesktop.DBus.Error.InvalidArgs"), "\(lines)")
        #expect(lines.contains("(oayays)"), "\(lines)")
        #expect(lines.contains("items 0"), "\(lines)")
    }
}
