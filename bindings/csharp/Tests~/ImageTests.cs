using System;
using System.Collections.Generic;
using System.IO;

namespace Robota.Tests
{
    internal static class ImageTests
    {
        // A PNG's magic bytes and an IHDR start: enough for the library to tell its type.
        private static readonly byte[] Png =
        {
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
        };

        [Test]
        private static void ImagesReachTheModelAsImageUrlParts()
        {
            var dir = Path.Combine(Path.GetTempPath(), "robota-cs-images-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            try
            {
                File.WriteAllBytes(Path.Combine(dir, "shot.png"), Png);
                using (var fake = new FakeServer())
                using (var rt = fake.Runtime())
                {
                    fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"Two.\"]}");
                    using (var s = rt.CreateSession(new SessionConfig("fake", "gpt-test") { Cwd = dir }))
                    {
                        var images = new[]
                        {
                            RobotaImage.FromFile("shot.png"),
                            RobotaImage.FromBytes(Png, "image/png"),
                            RobotaImage.FromUrl(new Uri("https://example.com/cat.jpg")),
                        };
                        var r = Expect.Await(s.RunAsync("Compare", images), "RunAsync with images");
                        Expect.Equal("Two.", r.Response, "response");
                        var requests = (List<object>)fake.Send("{\"cmd\":\"requests\"}")["requests"];
                        Expect.Equal(1, requests.Count, "one model request");
                        var body = (Dictionary<string, object>)((Dictionary<string, object>)requests[0])["body"];
                        var data = "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAA=\"}}";
                        Expect.Equal(
                            "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Compare\"}," + data + "," + data +
                            ",{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.com/cat.jpg\"}}]}]",
                            Json.Serialize(body["messages"]),
                            "the request's messages");
                    }
                }
            }
            finally
            {
                Directory.Delete(dir, true);
            }
        }

        [Test]
        private static void ABadImageThrowsNamingIt()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(new SessionConfig("s", "m")))
            {
                var e = Expect.Throws<RobotaInvalidConfigException>(
                    () => s.Submit("x", new[] { RobotaImage.FromUrl(new Uri("https://example.com/a.png")), RobotaImage.FromBytes(Png, "image/jpeg") }),
                    "a PNG declared as JPEG");
                Expect.Equal("input_json: images[1]: media_type \"image/jpeg\" does not match the data, which is image/png", e.Message, "message");
            }
        }
    }
}
